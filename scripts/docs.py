#!/usr/bin/env python3
"""The figures in the docs, from the current build.

A page marks each generated figure, table or output block:

    <!--gen:NAME-->text the build produced<!--/gen-->

and this script knows how to produce every NAME by running the build's
`snapflow` (compile, run, sweep reports). `--write` rewrites the marked spans;
`--check` (what tests/Docs/docs.test runs) prints each span whose text
differs from what the build gives, and exits 1 if any does, so a page cannot
silently disagree with the code. Wall-clock figures are not generated; they
live in bench/README.md with their dates.

    scripts/docs.py --check            every page
    scripts/docs.py --write docs/Validation.md
    scripts/docs.py --build build --check README.md

It also checks that every chip fingerprint a page quotes (16 hex digits in
backquotes or parentheses) is one the build computes for a chip the docs use,
that every report key (`snapflow list --report-keys`) has a row in
docs/Simulator.md's table of outputs, and every row a key, and that the
chip-key tables of docs/ArchConfig.md quote the chip files' values.
"""

import argparse
import concurrent.futures
import csv
import difflib
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARK = re.compile(r"<!--gen:([\w.-]+)-->(.*?)<!--/gen-->", re.S)


class Build:
    """Runs the build's snapflow, caching each command's report."""

    def __init__(self, build_dir):
        self.snapflow = os.path.join(build_dir, "bin", "snapflow")
        self.opt = os.path.join(build_dir, "bin", "snapflow-opt")
        if not os.access(self.snapflow, os.X_OK):
            sys.exit(f"docs.py: no {self.snapflow}; build first (make)")
        self.tmp = tempfile.mkdtemp(prefix="snapflow-docs-")
        self.cache = {}

    def command(self, *args, unfit_ok=False, cwd=None):
        """stdout of `snapflow ARGS` (run in `cwd`), which must succeed (or,
        with `unfit_ok`, fail with exit 2: a program that does not fit, whose
        compile report is still written)."""
        key = ("out", cwd) + args
        if key not in self.cache:
            self.cache[key] = self._run(args, unfit_ok, cwd)
        return self.cache[key]

    def _run(self, args, unfit_ok=False, cwd=None):
        env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
        p = subprocess.run([self.snapflow, *args], capture_output=True,
                           text=True, env=env, cwd=cwd)
        if p.returncode != 0 and not (unfit_ok and p.returncode == 2):
            sys.exit(f"docs.py: snapflow {' '.join(args)} failed:\n"
                     f"{p.stderr}")
        return p.stdout

    def _report(self, args, unfit_ok=False, cwd=None):
        """Runs `snapflow ARGS --report FILE` (uncached) and reads FILE."""
        fd, path = tempfile.mkstemp(suffix=".json", dir=self.tmp)
        os.close(fd)
        self._run((*args, "--report", path), unfit_ok, cwd)
        with open(path) as f:
            return json.load(f)

    def report(self, *args, unfit_ok=False, cwd=None):
        """The JSON report of `snapflow ARGS --report FILE`."""
        key = ("report", cwd) + args
        if key not in self.cache:
            self.cache[key] = self._report(args, unfit_ok, cwd)
        return self.cache[key]

    def transcript(self, commands, cwd, keep=3):
        """A shell transcript: `$ snapflow ARGS` and what it printed (stdout,
        then stderr), each output cut to `keep` lines and "  ..."."""
        env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
        lines = []
        for args in commands:
            p = subprocess.run([self.snapflow, *args], capture_output=True,
                               text=True, env=env, cwd=cwd)
            out = (p.stdout + p.stderr).splitlines()
            lines.append("$ snapflow " + " ".join(args))
            lines += out[:keep] + (["  ..."] if len(out) > keep else [])
        return "\n```\n" + "\n".join(lines) + "\n```\n"

    def prefetch(self, commands):
        """Reports of `snapflow ARGS --report FILE` for every ARGS in
        `commands`, two at a time (the machine's cores), into the cache."""
        todo = [tuple(a) for a in commands
                if ("report", None) + tuple(a) not in self.cache]
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            for args, rep in zip(todo, pool.map(self._report, todo)):
                self.cache[("report", None) + args] = rep

    def run(self, *args):
        return self.report("run", *args)

    def sweep(self, *args):
        """The rows of `snapflow sweep ARGS -o DIR`'s results.csv, as dicts
        by column name, in grid order."""
        key = ("sweep",) + args
        if key not in self.cache:
            out = os.path.join(self.tmp, f"sweep{len(self.cache)}")
            self.command("sweep", *args, "-o", out)
            with open(os.path.join(out, "results.csv")) as f:
                self.cache[key] = list(csv.DictReader(f))
        return self.cache[key]

    def compile(self, *args):
        # A compile report is written also when the program does not fit.
        return self.report("compile", *args, unfit_ok=True)


def chip_value(chip, key):
    """A value of arch/chips/CHIP.yaml (`  key:` then `    value: V`)."""
    with open(os.path.join(ROOT, "arch", "chips", chip + ".yaml")) as f:
        text = f.read()
    m = re.search(r"^  " + key + r":\n    value: *([^\n]+)", text, re.M)
    if not m:
        sys.exit(f"docs.py: no {key} in {chip}.yaml")
    return float(m.group(1))


def num(x, digits=1):
    return f"{x:.{digits}f}"


def ms(seconds, digits=2):
    return f"{seconds * 1e3:.{digits}f}"


def pct(x):
    return f"{x:+.0f}%" if abs(x) >= 1 else f"{x:+.1f}%"


#
# docs/Validation.md
#

R1 = ("--model", "deepseek-r1", "--chip", "sn40l-16", "--tp", "16",
      "--context", "131072", "--kv", "snapstream:ratio=4")


def r1_run(batch, *extra, steps=16):
    return (*R1, "--batch", str(batch), "--steps", str(steps), "--no-prefill",
            *extra)


MULTI = ("--chip", "sn40l-16", "--batch", "1", "--context", "4096", "--kv",
         "full", "--steps", "16", "--no-prefill")
MULTI_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "deepseek-r1")
# Every inferred chip parameter the issue names, as --set keys.
SENSITIVITY = (
    ("system.link_latency_ns", "per-hop latency"),
    ("system.link_bytes_per_s", "link bandwidth"),
    ("system.collective_launch_ns", "collective launch"),
    ("socket.hbm_bytes_per_s", "HBM bandwidth"),
    ("socket.agcu_count", "AGCU count"),
    ("socket.reconfig_cycles", "reconfiguration"),
    ("socket.kernel_launch_cycles", "kernel launch"),
    ("socket.pcu_lanes", "systolic lanes"),
)


def validation_multisocket(b):
    g = {}
    rows = ["| model | 1 socket | 8 sockets | 16 sockets | binds at 16 |",
            "|---|---|---|---|---|"]
    reports = {}
    for model in MULTI_MODELS:
        cells, binding = [], "-"
        for tp in (1, 8, 16):
            args = ("--model", model, "--tp", str(tp), *MULTI)
            if not b.compile(*args[:-3])["fits"]:
                cells.append("does not fit")
                continue
            r = b.run(*args)
            reports[(model, tp)] = r
            cells.append(num(r["roofline_efficiency"], 2))
            if tp == 16:
                binding = r["roofline"]["binding"]
        rows.append(f"| {model} | " + " | ".join(cells) + f" | {binding} |")
    g["d.efficiency"] = "\n" + "\n".join(rows) + "\n"
    r = reports[("llama-3.1-8b", 16)]
    layer = [op for op in r["collectives"]["ops"]
             if op["section"].startswith("layers")]
    per_layer = sum(op["model_s"] for op in layer)
    layers = 32  # num_hidden_layers of llama-3.1-8b
    g["d.chain"] = (
        f"{len(layer)} {layer[0]['algorithm']} all-reduces per layer of "
        f"{layer[0]['model_s'] * 1e6:.1f} us each ({per_layer * 1e6:.1f} us "
        f"per layer in series) against "
        f"{r['roofline']['hbm_s'] / layers * 1e6:.1f} us of HBM streaming "
        f"per layer")
    g["d.chain-efficiency"] = num(r["roofline_efficiency"], 2)

    r1 = reports[("deepseek-r1", 16)]
    bd = r1["breakdown"]
    g["d.r1"] = (
        f"{num(r1['roofline_efficiency'], 2)}: of its "
        f"{ms(r1['step_latency_s'])} ms step the critical path is "
        f"{ms(bd['memory_s'])} ms of waiting for memory, "
        f"{ms(bd['collective_s'])} ms of collectives "
        f"({r1['collectives']['per_step']:.0f} per step), "
        f"{ms(bd['network_s'])} ms of network crossings and "
        f"{ms(bd['compute_s'])} ms of compute, against an HBM bound of "
        f"{ms(r1['roofline']['hbm_s'])} ms")

    # Prefill of a 4K prompt on 16 sockets, against its bounds.
    path = os.path.join(b.tmp, "prefill-8b-tp16.mlir")
    b.command("compile", "--model", "llama-3.1-8b", "--chip", "sn40l-16",
              "--tp", "16", "--batch", "1", "--context", "4096", "--kv",
              "full", "--phase", "prefill", "-o", path)
    pre = b.report("simulate", path)
    rf = pre["roofline"]
    bounds = {"compute": rf["compute_s"], "HBM": rf["hbm_s"],
              "link": rf["link_s"]}
    name, bound = max(bounds.items(), key=lambda kv: kv[1])
    g["d.prefill"] = (
        f"{ms(pre['step_latency_s'], 1)} ms against a {name} bound of "
        f"{ms(bound, 1)} ms ({100 * (pre['step_latency_s'] / bound - 1):.0f}% "
        f"above; compute {ms(rf['compute_s'], 1)} ms, HBM "
        f"{ms(rf['hbm_s'], 1)} ms); its {pre['collectives']['per_step']:.0f} "
        f"collectives ({pre['collectives']['bytes_per_step'] / pre['collectives']['per_step'] / 2**20:.0f} MiB on average) run "
        f"{', '.join(sorted({op['algorithm'] for op in pre['collectives']['ops']}))}")

    # Sensitivity: tokens/s at half and double each inferred value, one
    # sweep per point and parameter (the sweep's --set axis).
    points = (
        ("Llama-3.1-8B, TP 16, batch 1, 4K",
         ("--model", "llama-3.1-8b", "--chip", "sn40l-16", "--tp", "16",
          "--context", "4k", "--batch", "1", "--kv", "full", "--steps", "16")),
        ("DeepSeek-R1, TP 16, batch 64, 128K, snapstream, split MLA",
         ("--model", "deepseek-r1", "--chip", "sn40l-16", "--tp", "16",
          "--context", "128k", "--batch", "64", "--kv", "snapstream:ratio=4",
          "--mla-cache", "sequence", "--steps", "16")),
    )
    head = "| parameter | sn40l-16 value |"
    rule = "|---|---|"
    for name, _ in points:
        head += f" {name}: x0.5 | x1 | x2 |"
        rule += "---|---|---|"
    out = [head, rule]
    commands = []
    for key, label in SENSITIVITY:
        value = chip_value("sn40l-16", key.split(".")[1])
        texts = []
        for factor in (0.5, 1, 2):
            v = value * factor
            texts.append(str(int(v)) if key.endswith(("_count", "_cycles"))
                         else f"{v:g}")
        axis = f"{key}={','.join(texts)}"
        row = f"| {label} (`{key}`) | {value:g} |"
        for _, args in points:
            rows = b.sweep(*args, "--set", axis)
            row += "".join(
                f" {float(r['report.throughput_tokens_per_s']):.0f} |"
                for r in rows)
        out.append(row)
        commands.append(axis)
    g["d.sensitivity-command"] = (
        "\n```\nsnapflow sweep " + " ".join(points[0][1]) +
        " --set " + commands[0] + " -o sens\n```\n")
    g["d.sensitivity"] = "\n" + "\n".join(out) + "\n"
    return g


def validation(b):
    g = {}
    # (a) Llama-3.1-8B decode, batch 1, context 4096.
    llama = ("--model", "llama-3.1-8b", "--chip", "sn40l", "--batch", "1",
             "--context", "4096", "--kv", "full")
    c = b.compile(*llama)
    r = b.run(*llama, "--steps", "8")
    flops, read = c["flops_per_step_per_socket"], \
        c["offchip_bytes_read_per_step_per_socket"]
    g["a.flops"] = f"{flops:,}"
    g["a.flops-error"] = pct(100 * (flops / 20e9 - 1))
    g["a.bytes"] = f"{read:,}"
    g["a.bytes-error"] = pct(100 * (read / 15.4e9 - 1))
    g["a.kv"] = f"{c['kv_cache_bytes_per_socket']:,}"
    g["a.step"] = ms(r["step_latency_s"])
    g["a.tps"] = num(r["throughput_tokens_per_s"])
    g["a.bound"] = ms(r["roofline"]["step_latency_lower_bound_s"])
    g["a.efficiency"] = num(r["roofline_efficiency"], 2)
    g["a.above-bound"] = num(100 * (r["step_latency_s"] /
                                    r["roofline"]["step_latency_lower_bound_s"]
                                    - 1), 0)
    g["a.memory"] = ms(r["breakdown"]["memory_s"], 1)
    g["a.network"] = ms(r["breakdown"]["network_s"], 1)

    # (b) DeepSeek-R1, TP 16, 128K, SnapStream ratio 4.
    def row(rep, best=False):
        tps = num(rep["throughput_tokens_per_s"])
        return (f"| {rep['batch']}{' (max)' if best else ''} | {tps} | "
                f"{num(rep['per_user_tokens_per_s'])} | "
                f"{ms(rep['step_latency_s'])} ms | "
                f"{ms(rep['roofline']['step_latency_lower_bound_s'])} ms | "
                f"{num(rep['roofline_efficiency'], 2)} |")

    def table(batches, *extra):
        rows = ["| batch | tokens/s | per user | step | roofline bound (HBM) "
                "| efficiency |", "|---|---|---|---|---|---|"]
        reps = [b.run(*r1_run(n, *extra)) for n in batches]
        top = b.run(*r1_run("max", *extra))
        rows += [row(x) for x in reps] + [row(top, best=True)]
        return "\n" + "\n".join(rows) + "\n", reps, top

    g["b.replicated"], rep_rows, rep_max = table([1, 2, 4, 8])
    g["b.sequence"], seq_rows, seq_max = table([1, 8, 32, 64, 128],
                                               "--mla-cache", "sequence")
    mtp = ("--mtp", "1", "--mtp-acceptance", "0.8")
    rep_mtp = b.run(*r1_run("max", *mtp))
    seq_mtp = b.run(*r1_run("max", "--mla-cache", "sequence", *mtp))
    seq_mtp07 = b.run(*r1_run(seq_mtp["batch"], "--mla-cache", "sequence",
                              "--mtp", "1", "--mtp-acceptance", "0.7"))
    g["b.max-replicated"] = str(rep_max["batch"])
    g["b.max-sequence"] = str(seq_max["batch"])
    kv_seq = rep_max["kv_cache_bytes_per_socket"] / rep_max["batch"]
    g["b.kv-per-sequence"] = num(kv_seq / 2**30, 2)
    weights = b.compile(*R1, "--batch", "1")["weights_bytes_per_socket"]
    weights_mtp = b.compile(*R1, "--batch", "1", *mtp)[
        "weights_bytes_per_socket"]
    g["b.weights"] = num(weights / 2**30, 1)
    g["b.mtp-weights"] = num((weights_mtp - weights) / 2**30, 2)
    g["b.tokens-per-step"] = num(seq_mtp["tokens_per_step"], 1)
    g["b.mtp-max-replicated"] = str(rep_mtp["batch"])
    g["b.mtp-max-sequence"] = str(seq_mtp["batch"])

    def mtp_row(name, rep, bold):
        tps = num(rep["throughput_tokens_per_s"])
        return (f"| {name} | {rep['batch']} (max) | "
                f"{'**' + tps + '**' if bold else tps} | "
                f"{num(rep['per_user_tokens_per_s'])} | "
                f"{ms(rep['step_latency_s'])} ms | "
                f"{ms(rep['roofline']['step_latency_lower_bound_s'])} ms |")
    g["b.mtp"] = "\n" + "\n".join([
        "| cache | batch | tokens/s | per user | step | bound |",
        "|---|---|---|---|---|---|",
        mtp_row("replicated", rep_mtp, False),
        mtp_row("split by sequence", seq_mtp, True)]) + "\n"
    # Throughput and per-user speed against batch: both cache layouts, with
    # and without MTP.
    layouts = (("replicated", ()), ("replicated + MTP", mtp),
               ("split", ("--mla-cache", "sequence")),
               ("split + MTP", ("--mla-cache", "sequence", *mtp)))
    lines = ["| batch | " + " | ".join(n for n, _ in layouts) + " |",
             "|---|" + "---|" * len(layouts)]
    for n in (1, 8, 32, 64, 128, 156):
        cells = []
        for _, extra in layouts:
            fits = b.compile(*R1, "--batch", str(n), *extra)["fits"]
            if not fits:
                cells.append("does not fit")
                continue
            rep = b.run(*r1_run(n, *extra))
            tps = rep["throughput_tokens_per_s"]
            cells.append(f"{'**' if tps >= 1832 else ''}{tps:.0f}"
                         f"{'**' if tps >= 1832 else ''} "
                         f"({rep['per_user_tokens_per_s']:.1f})")
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    g["b.curves"] = "\n" + "\n".join(lines) + "\n"
    best = seq_mtp["throughput_tokens_per_s"]
    plain = seq_max["throughput_tokens_per_s"]
    g["b.best"] = f"{best:.0f}"
    g["b.best-vs-published"] = (
        f"{abs(100 * (best / 1832 - 1)):.0f}% "
        f"{'above' if best >= 1832 else 'below'}")
    g["b.plain"] = f"{plain:.0f}"
    g["b.plain-share"] = f"{100 * plain / 1832:.0f}%"
    g["b.tokens-per-step-0.7"] = num(seq_mtp07["tokens_per_step"], 1)
    bound = seq_mtp["roofline"]["step_latency_lower_bound_s"]
    g["b.roofline-allows"] = (
        f"{seq_mtp['batch']} x {num(seq_mtp['tokens_per_step'], 1)} / "
        f"{ms(bound)} ms = "
        f"{seq_mtp['batch'] * seq_mtp['tokens_per_step'] / bound:.0f}")
    bd = seq_max["breakdown"]
    g["b.breakdown"] = (
        f"{ms(seq_max['step_latency_s'], 1)} ms step is "
        f"{ms(bd['memory_s'], 1)} ms of waiting for memory, "
        f"{ms(bd['compute_s'], 1)} ms of compute, "
        f"{ms(bd['network_s'], 1)} ms of network crossings and "
        f"{ms(bd['collective_s'], 1)} ms of collectives")
    coll = seq_max["collectives"]
    algorithms = sorted({op["algorithm"] for op in coll["ops"]})
    g["b.collectives"] = (
        f"{coll['per_step']:.0f} per step ({', '.join(algorithms)}, chosen "
        f"per message), {ms(coll['latency_s_per_step'], 1)} ms of latency "
        f"summed, of which {ms(coll['exposed_s_per_step'], 1)} ms after "
        f"their producers' last tile")
    reached = [x for x in seq_rows if x["throughput_tokens_per_s"] >= 1832]
    g["b.reached"] = (
        f"at batch {reached[0]['batch']} "
        f"({reached[0]['throughput_tokens_per_s']:.0f} tokens/s)"
        if reached else "at none of the batches above")
    g["b.per-user-best"] = num(seq_mtp["per_user_tokens_per_s"])
    g["b.per-user-single"] = f"{rep_rows[0]['per_user_tokens_per_s']:.0f}"
    g["b.batch1"] = (f"{num(rep_rows[0]['per_user_tokens_per_s'])} vs "
                     f"{num(seq_rows[0]['per_user_tokens_per_s'])}")
    g["b.split-gain"] = (
        f"{plain / rep_max['throughput_tokens_per_s']:.1f}x the throughput "
        f"({plain:.0f} vs {rep_max['throughput_tokens_per_s']:.0f} tokens/s)")

    # (d) Multi-socket efficiency and sensitivity.
    g.update(validation_multisocket(b))

    # (c) Full vs SnapStream.
    full = ("--model", "deepseek-r1", "--chip", "sn40l-16", "--tp", "16",
            "--context", "131072")
    cf = b.compile(*full, "--batch", "8", "--kv", "full")
    cs = b.compile(*full, "--batch", "8", "--kv", "snapstream:ratio=4")

    def largest(kv, *extra):
        return b.run(*full, "--kv", kv, "--batch", "max", "--steps", "1",
                     "--no-prefill", *extra)["batch"]
    rf, rs = largest("full"), largest("snapstream:ratio=4")
    sf = largest("full", "--mla-cache", "sequence")
    ss = largest("snapstream:ratio=4", "--mla-cache", "sequence")
    pf = b.run(*full, "--kv", "full", "--batch", "2", "--steps", "4",
               "--no-prefill")
    ps = b.run(*full, "--kv", "snapstream:ratio=4", "--batch", "2",
               "--steps", "4", "--no-prefill")
    hf, hs = pf["memory"]["peak_bytes"]["hbm"], ps["memory"]["peak_bytes"]["hbm"]
    sr_f = pf["memory"]["peak_bytes"]["sram"]
    sr_s = ps["memory"]["peak_bytes"]["sram"]
    kf, ks = cf["kv_cache_bytes_per_socket"], cs["kv_cache_bytes_per_socket"]
    g["c.table"] = "\n" + "\n".join([
        "| quantity (per socket) | full | snapstream:ratio=4 | ratio |",
        "|---|---|---|---|",
        f"| KV cache, batch 8 | {kf:,} B | {ks:,} B | {ks / kf:.2f} |",
        f"| largest batch, MLA replicated | {rf} | {rs} | {rs / rf:.1f}x |",
        f"| largest batch, MLA split by sequence | {sf} | {ss} | "
        f"{ss / sf:.1f}x |",
        f"| HBM occupied, batch 2 (report `memory.peak_bytes.hbm`) | "
        f"{hf / 1e9:.2f}e9 B | {hs / 1e9:.2f}e9 B | {hs / hf:.2f} |",
        f"| SRAM peak, batch 2 (`memory.peak_bytes.sram`) | "
        f"{sr_f / 1e6:.1f}e6 B | {sr_s / 1e6:.1f}e6 B | {sr_s / sr_f:.2f} |",
    ]) + "\n"
    g["c.batch-gain"] = (f"{min(rs / rf, ss / sf):.1f}x to "
                         f"{max(rs / rf, ss / sf):.1f}x")

    g.update(validation_prefill(b))
    g.update(validation_switch(b))
    g.update(validation_snapstream(b))
    return g


# The SnapStream deployment: the published points and the flags that map
# them (../shared/reference/PRODUCTION.md). A forward pass of DeepSeek-R1
# took batch x 2.4 / throughput (the 2.4 tokens MTP keeps per pass).
# SnapStream Table 5, 128K row, and section 5.2's MTP scale (PRODUCTION.md
# section 1, [READ]).
TABLE5_FULL = {"batch": 16, "tokens_per_s": 434}
TABLE5_SNAPSTREAM = {"batch": 64, "tokens_per_s": 1832}
MTP_SCALE = 2.4
R1_NODE = ("--model", "deepseek-r1", "--chip", "sn40l-16", "--context",
           "131072", "--mla-cache", "batch", "--mtp", "2",
           "--mtp-acceptance", "0.8", "--no-prefill")
SNAPSTREAM_POINTS = (
    # (name, args, published, unit)
    ("DeepSeek-R1, 128K, full cache, batch 16: one forward pass",
     R1_NODE + ("--kv", "full", "--batch", str(TABLE5_FULL["batch"])),
     TABLE5_FULL["batch"] * MTP_SCALE / TABLE5_FULL["tokens_per_s"], "step"),
    ("DeepSeek-R1, 128K, SnapStream 32K cache, batch 64: one forward pass",
     R1_NODE + ("--kv", "snapstream:ratio=4", "--batch",
                str(TABLE5_SNAPSTREAM["batch"])),
     TABLE5_SNAPSTREAM["batch"] * MTP_SCALE / TABLE5_SNAPSTREAM["tokens_per_s"],
     "step"),
    ("Llama-3.1-8B, TP 16, 8K, batch 1: tokens/s per user",
     ("--model", "llama-3.1-8b", "--chip", "sn40l-16", "--tp", "16",
      "--context", "8192", "--batch", "1", "--kv", "full", "--no-prefill"),
     (1042.0, 1042.0), "user"),
    ("DeepSeek-R1, 4K, batch 1, MTP 2 at 0.8: tokens/s per user",
     ("--model", "deepseek-r1", "--chip", "sn40l-16", "--context", "4096",
      "--batch", "1", "--kv", "full", "--mla-cache", "batch", "--mtp", "2",
      "--mtp-acceptance", "0.8", "--no-prefill"), (198.0, 250.0), "user"),
)
# What-ifs that size a mechanism snapflow does not model (never applied to
# the chip file): HBM at the ~85% of its bandwidth the SN40L paper measures
# a decode reaching, and PCUs at half their systolic peak.
SNAPSTREAM_WHAT_IFS = (
    ("HBM at 85% of 1.6 TB/s", "socket.hbm_bytes_per_s=1.36e12"),
    ("PCUs at half their systolic rate",
     "socket.pcu_systolic_flops_per_cycle=192"),
)
# Table 4 of SnapStream: the shares of one MoE layer's prefill at 128K,
# and the profile operators each row is.
TABLE4 = (
    ("QKV", 4.10, ("qkv_projection",)),
    ("MHA (attention)", 69.40, ("attention",)),
    ("output projection", 5.84, ("output_projection",)),
    ("router", 3.15, ("router",)),
    ("MoE FFN", 14.67, ("routed_experts", "shared_experts")),
    ("SnapKV compression", 2.52, ("kv_selection",)),
    ("streaming ring buffer", 0.32, ("kv_upkeep",)),
)


def op_path(report, key="profile"):
    """Critical-path seconds by operator of a report's profile."""
    return {o["operator"]: o["critical_path_s"]
            for o in report[key]["operators"]}


def validation_snapstream(b):
    """The SnapStream deployment: the published points, the profile of the
    DeepSeek-R1 steps, what-ifs sizing what is not modelled, and Table 4."""
    g = {}
    rows = ["| point | published | snapflow | snapflow time / published "
            "| within 25% | binds |", "|---|---|---|---|---|---|"]
    reports = []
    for name, args, published, unit in SNAPSTREAM_POINTS:
        r = b.run(*args)
        reports.append(r)
        binds = (f"{r['binds']['operator']} on {r['binds']['resource']}, "
                 f"{100 * r['binds']['share']:.0f}%")
        if unit == "step":
            mine = r["step_latency_s"]
            ratio = mine / published
            cells = (f"{ms(published, 1)} ms", f"{ms(mine, 1)} ms",
                     f"{ratio:.2f}")
        else:
            mine = r["per_user_tokens_per_s"]
            lo, hi = published
            # Time per token against the range's nearer end (1 inside it).
            ratio = 1.0 if lo <= mine <= hi else (
                lo / mine if mine < lo else hi / mine)
            shown = f"{lo:.0f}" if lo == hi else f"{lo:.0f} to {hi:.0f}"
            cells = (f"{shown} tokens/s", f"{mine:.0f} tokens/s",
                     f"{ratio:.2f}" + ("" if lo == hi else
                                        " (to the range)"))
        within = "yes" if 0.75 <= ratio <= 1.25 else "no"
        rows.append(f"| {name} | {cells[0]} | {cells[1]} | {cells[2]} | "
                    f"{within} | {binds} |")
    g["s.table"] = "\n" + "\n".join(rows) + "\n"
    g["s.commands"] = "\n```\n" + "\n".join(
        "snapflow run " + " ".join(args)
        for _, args, _, _ in SNAPSTREAM_POINTS) + "\n```\n"

    # The two DeepSeek-R1 node points, operator by operator.
    full, snap = reports[0], reports[1]
    pf, ps = op_path(full), op_path(snap)
    res_f = {o["operator"]: o["critical_path"] for o in
             full["profile"]["operators"]}
    res_s = {o["operator"]: o["critical_path"] for o in
             snap["profile"]["operators"]}
    def top(res):
        return max(res, key=res.get) if res else "-"
    ops = [o for o in pf if pf[o] >= 0.0005 or ps.get(o, 0) >= 0.0005]
    ops.sort(key=lambda o: -(pf.get(o, 0) + ps.get(o, 0)))
    prow = ["| operator | full, batch 16: ms | share | waits on | "
            "SnapStream, batch 64: ms | share | waits on |",
            "|---|---|---|---|---|---|---|"]
    for o in ops:
        prow.append(
            f"| {o} | {ms(pf.get(o, 0))} | "
            f"{100 * pf.get(o, 0) / full['step_latency_s']:.1f}% | "
            f"{top(res_f.get(o, {}))} | {ms(ps.get(o, 0))} | "
            f"{100 * ps.get(o, 0) / snap['step_latency_s']:.1f}% | "
            f"{top(res_s.get(o, {}))} |")
    prow.append(f"| step | {ms(full['step_latency_s'])} | 100% | | "
                f"{ms(snap['step_latency_s'])} | 100% | |")
    g["s.profile"] = "\n" + "\n".join(prow) + "\n"
    mla = ("qkv_projection", "attention", "output_projection", "router")
    def parts(p):
        coll = sum(p.get(o, 0) for o in ("all_reduce", "all_gather",
                                         "all_to_all"))
        return (f"{ms(p.get('routed_experts', 0), 1)} ms of routed experts "
                f"waiting on HBM, {ms(sum(p.get(o, 0) for o in mla), 1)} ms "
                f"of the MLA kernel's chain (QKV projection, attention, "
                f"output projection, router), {ms(coll, 1)} ms of "
                f"collectives and {ms(p.get('kernel_launch', 0), 2)} ms of "
                f"kernel launches")
    g["s.full-parts"] = parts(pf)
    g["s.snap-parts"] = parts(ps)
    experts = [o for o in full["profile"]["operators"]
               if o["operator"] == "routed_experts"][0]
    hbm = chip_value("sn40l-16", "hbm_bytes_per_s")
    g["s.experts-bytes"] = (
        f"{experts['bytes']['hbm'] / 1e9:.1f} GB per socket, "
        f"{ms(experts['bytes']['hbm'] / hbm, 1)} ms at {hbm / 1e12:.1f} TB/s")

    # What-ifs: each mechanism's size, measured on this build.
    wrow = ["| what-if (`--set`) | full, batch 16: step | time / published "
            "| SnapStream, batch 64: step | time / published |",
            "|---|---|---|---|---|"]
    closes = []
    cases = [(label, ("--set", setting), f"{label} (`{setting}`)")
             for label, setting in SNAPSTREAM_WHAT_IFS]
    cases.append(("both", tuple(a for _, st in SNAPSTREAM_WHAT_IFS
                                for a in ("--set", st)), "both"))
    for label, sets, shown in cases:
        cells, within = [], True
        for (_, args, published, _) in SNAPSTREAM_POINTS[:2]:
            r = b.run(*args, *sets)
            ratio = r["step_latency_s"] / published
            within = within and 0.75 <= ratio <= 1.25
            cells += [f"{ms(r['step_latency_s'], 1)} ms", f"{ratio:.2f}"]
        wrow.append(f"| {shown} | " + " | ".join(cells) + " |")
        if within:
            closes.append(label)
    g["s.what-ifs"] = "\n" + "\n".join(wrow) + "\n"
    g["s.what-ifs-close"] = (
        "none of them brings both rows within 25%" if not closes else
        "both rows come within 25% with " + " and with ".join(closes))
    # The per-user rows under the same what-ifs.
    users = []
    for name, args, _, _ in SNAPSTREAM_POINTS[2:]:
        rates = [b.run(*args)["per_user_tokens_per_s"]]
        rates += [b.run(*args, "--set", st)["per_user_tokens_per_s"]
                  for _, st in SNAPSTREAM_WHAT_IFS]
        users.append(f"{name.split(',')[0]} " +
                     " / ".join(f"{x:.0f}" for x in rates))
    g["s.user-what-ifs"] = (
        " and ".join(users) + " tokens/s per user (as shipped / " +
        " / ".join(label for label, _ in SNAPSTREAM_WHAT_IFS) + ")")
    g["s.flat"] = (f"{ms(full['step_latency_s'], 1)} and "
                   f"{ms(snap['step_latency_s'], 1)} ms")

    # Table 4: one MoE layer of a 128K prefill (the MoE layer loop's
    # kernels, per layer and chunk, in the prompt's profile).
    r = prefill_report(b, 131072, "snapstream:ratio=4")
    layer = {}
    loop = None
    for sec in r["ttft_profile"]["sections"]:
        name = sec["section"]
        if name.startswith("layers_") and sec["critical_path"].get(
                "routed_experts", 0) > 0:
            loop = name[:-len("_experts")] if name.endswith("_experts") \
                else name
    for sec in r["ttft_profile"]["sections"]:
        if loop and sec["section"].startswith(loop):
            for op, t in sec["critical_path"].items():
                layer[op] = layer.get(op, 0) + t
    total = sum(layer.values())
    trow = ["| Table 4 row | published share | snapflow share | snapflow "
            "operators |", "|---|---|---|---|"]
    named = set()
    for label, share, names in TABLE4:
        mine = sum(layer.get(n, 0) for n in names)
        named.update(names)
        trow.append(f"| {label} | {share:.2f}% | {100 * mine / total:.2f}% | "
                    f"{', '.join(names)} |")
    rest = sorted((t, op) for op, t in layer.items()
                  if op not in named and t > 0)[::-1]
    trow.append(f"| (not in Table 4) | - | "
                f"{100 * sum(t for t, _ in rest) / total:.2f}% | "
                + ", ".join(f"{op} {100 * t / total:.1f}%" for t, op in rest)
                + " |")
    g["s.table4"] = "\n" + "\n".join(trow) + "\n"
    busy = {o["operator"]: o["busy_s"] for o in r["ttft_profile"]["operators"]}
    g["s.table4-off"] = (
        f"the router is busy {ms(busy.get('router', 0), 0)} ms and the "
        f"selection {ms(busy.get('kv_selection', 0), 0)} ms of the "
        f"{r['step_latency_s']:.2f} s prefill, and the selection adds "
        f"{1e6 * r['ttft_breakdown']['selection_s']:.0f} us to it")
    g["s.table4-loop"] = loop or "-"
    # The QKV projections: SnapStream runs them TP16; snapflow replicates
    # the low-rank down-projections (q_a_proj, kv_a_proj_with_mqa) as the
    # vLLM's DeepSeek model code does (ReplicatedLinear).
    with open(os.path.join(ROOT, "models", "configs", "deepseek-r1.json")) as f:
        cfg = json.load(f)
    hdim, ql = cfg["hidden_size"], cfg["q_lora_rank"]
    kvl = cfg["kv_lora_rank"] + cfg["qk_rope_head_dim"]
    qb = ql * cfg["num_attention_heads"] * (cfg["qk_nope_head_dim"] +
                                            cfg["qk_rope_head_dim"])
    replicated = hdim * (ql + kvl) + qb / 16
    split = (hdim * (ql + kvl) + qb) / 16
    g["s.qkv-split"] = f"{replicated / split:.1f}x"
    return g


def validation_switch(b):
    """(f) A model switched into HBM: each model's switch alone, measured by
    the SystemC run of the serving study's on-demand deployment."""
    policy, extra = MODELS_POLICIES[1]
    report, _ = models_run(b, policy, extra)
    ddr = chip_value("sn40l-16", "ddr_bytes_per_s")
    rows = ["| model | weights per socket (TP 16) | switch alone (SystemC) | "
            "weights / DDR bandwidth | published |", "|---|---|---|---|---|"]
    for m in report["models"]:
        w = m["weight_bytes_per_socket"]
        published = "0.01 s" if m["model"] == "llama-3.1-8b" else "-"
        rows.append(f"| {m['model']} | {w / 2**20:.2f} MiB | "
                    f"{ms(m['switch_s'])} ms | {ms(w / ddr)} ms | {published} |")
    eight = next(m for m in report["models"] if m["model"] == "llama-3.1-8b")
    return {
        "f.table": "\n" + "\n".join(rows) + "\n",
        "f.ddr": f"{ddr / 1e9:.0f} GB/s",
        "f.8b": (f"{ms(eight['switch_s'])} ms against the published 10 ms "
                 f"({pct(100 * (eight['switch_s'] / 0.01 - 1))})"),
    }


PREFILL_LENGTHS = (8192, 32768, 131072)


def prefill_report(b, tokens, kv):
    """The report of one DeepSeek-R1 prompt's prefill on sn40l-16 (compile
    --phase prefill --prefill-chunk auto, then simulate)."""
    path = os.path.join(b.tmp, f"prefill-{tokens}-{kv.replace(':', '-')}.mlir")
    b.command("compile", "--model", "deepseek-r1", "--chip", "sn40l-16",
              "--tp", "16", "--phase", "prefill", "--batch", "1",
              "--context", str(tokens), "--kv", kv, "--prefill-chunk", "auto",
              "-o", path)
    return b.report("simulate", path)


def validation_prefill(b):
    """(e) TTFT with full against SnapStream, and the selection's share."""
    g = {}
    rows = ["| prompt | chunks | TTFT full | TTFT SnapStream | SnapStream "
            "- full | selection time (`selection_s`) | selection share of "
            "TTFT | selection bytes / FLOPs per socket | efficiency "
            "(SnapStream) |",
            "|---|---|---|---|---|---|---|---|---|"]
    for n in PREFILL_LENGTHS:
        f = prefill_report(b, n, "full")
        s = prefill_report(b, n, "snapstream:ratio=4")
        tb = s["ttft_breakdown"]
        tf, ts, sel = f["step_latency_s"], s["step_latency_s"], \
            tb["selection_s"]
        rows.append(
            f"| {n // 1024}K | {tb['chunks']} | {tf:.3f} s | {ts:.3f} s | "
            f"{1e3 * (ts - tf):+.1f} ms ({pct(100 * (ts / tf - 1))}) | "
            f"{1e6 * sel:+.1f} us | {100 * sel / ts:.4f}% | "
            f"{tb['selection_bytes'] / 1e9:.2f} GB / "
            f"{tb['selection_flops'] / 1e12:.3f} TFLOP | "
            f"{num(s['roofline_efficiency'], 2)} |")
    g["e.table"] = "\n" + "\n".join(rows) + "\n"
    return g


#
# README.md: the output of `make run`
#

def readme(b):
    out = b.command("run", "--model", "deepseek-r1", "--chip", "sn40l-16",
                    "--tp", "16", "--context", "131072", "--kv",
                    "snapstream:ratio=4", "--batch", "max", "--steps", "64")
    # What the paper's headline figure is, from the constants Validation.md
    # compares against (the per-user rate derived here, not copied).
    t5 = TABLE5_SNAPSTREAM
    paper = (f"{t5['tokens_per_s']} tokens/s means: it is Table 5's point "
             f"for a 128K prompt compressed to a 32K cache, "
             f"at batch {t5['batch']} (the most that fits with SnapStream), "
             f"with MTP drafting two tokens accepted at 0.8 (SambaNova scales "
             f"its measured rate by {MTP_SCALE} for them): a node's aggregate, "
             f"about {t5['tokens_per_s'] / t5['batch']:.1f} tokens/s per user")
    return {"make-run": "\n```\n" + out + "```\n", "paper-point": paper}


#
# docs/Sweeps.md: the 128K column of the context x KV-policy sweep
#

def sweeps(b):
    g = {}
    at = {}
    for kv in ("full", "snapstream:ratio=4"):
        at[kv] = b.run("--model", "deepseek-r1", "--chip", "sn40l-16",
                       "--context", "131072", "--batch", "max", "--kv", kv,
                       "--steps", "16", "--no-prefill")
    s, f = at["snapstream:ratio=4"], at["full"]
    g["at-128k"] = (f"{s['batch']} sequences with `snapstream:ratio=4` "
                    f"against {f['batch']} with `full`, "
                    f"{s['throughput_tokens_per_s']:.0f} against "
                    f"{f['throughput_tokens_per_s']:.0f} tokens/s")
    if b.write:
        draw_sweeps(b)
    return g


# The page's context x KV-policy sweep, and bench/sweep.sh's 48-point grid.
R1_SWEEP_ARGS = ("--model", "deepseek-r1", "--chip", "sn40l-16",
                 "--context", "8k,16k,32k,64k,128k", "--batch", "max",
                 "--kv", "full,snapkv:ratio=4,snapstream:ratio=4,"
                 "snapstream:ratio=8", "-j", "2")
BENCH_SWEEP_ARGS = ("--model", "llama-3.1-8b,deepseek-r1", "--chip",
                    "sn40l-16", "--context", "8k,32k,128k", "--batch",
                    "1,4,16,max", "--kv", "full,snapstream:ratio=4", "-j", "2")


def copy_plots(out, names):
    """Copies the sweep plots `names` (plots/NAME -> docs/images/IMAGE)
    of the sweep in `out`: the docs show what `snapflow sweep` draws."""
    for name, image in names.items():
        shutil.copyfile(os.path.join(out, "plots", name),
                        os.path.join(ROOT, "docs", "images", image))


def draw_sweeps(b):
    """docs/images/r1-{throughput-vs-context,batch-scaling,memory-vs-batch}
    .svg: the plots of the page's sweeps, as the sweep draws them."""
    out = os.path.join(b.tmp, "r1-sweep")
    b.command("sweep", *R1_SWEEP_ARGS, "-o", out)
    copy_plots(out, {"throughput_vs_context.svg":
                     "r1-throughput-vs-context.svg"})
    out = os.path.join(b.tmp, "bench-sweep")
    b.command("sweep", *BENCH_SWEEP_ARGS, "-o", out)
    r1 = "-deepseek-r1_on_sn40l-16.svg"
    copy_plots(out, {"batch_scaling" + r1: "r1-batch-scaling.svg",
                     "memory_vs_batch" + r1: "r1-memory-vs-batch.svg"})


#
# docs/KVMethods.md: the KV methods of the literature side by side
#

KV_METHODS_ARGS = (
    "--model", "deepseek-r1,llama-3.1-8b", "--chip", "sn40l-16",
    "--context", "32k,128k", "--batch", "max",
    "--kv", "full,snapkv:ratio=4,snapstream:ratio=4,h2o:ratio=4,"
    "scissorhands:ratio=4,arkvale:ratio=4",
    "--kv-format", "bf16,fp8,kivi2,kivi4,quarot4,zipcache",
    "--cla", "1,2", "-j", "2")


def kv_methods(b):
    g = {}
    out = os.path.join(b.tmp, "kv-methods")
    b.command("sweep", *KV_METHODS_ARGS, "-o", out)
    with open(os.path.join(out, "results.csv")) as f:
        rows = list(csv.DictReader(f))
    bad = [r for r in rows if r["status"] != "ok"]
    if bad:
        sys.exit("docs.py: the KV-methods sweep has points that did not run: "
                 + "; ".join(f"{r['index']}: {r['reason']}" for r in bad))
    args = list(KV_METHODS_ARGS)
    g["command"] = ("\n```sh\nbuild/bin/snapflow sweep " +
                    " \\\n    ".join(" ".join(args[i:i + 2]) for i in
                                      range(0, len(args), 2)) +
                    " \\\n    -o kv-methods\n```\n")
    by = {(r["model"], r["context"], r["kv"], r["kv_format"], r["cla"]): r
          for r in rows}
    models = list(dict.fromkeys(r["model"] for r in rows))
    contexts = list(dict.fromkeys(r["context"] for r in rows))
    policies = list(dict.fromkeys(r["kv"] for r in rows))
    formats = list(dict.fromkeys(r["kv_format"] for r in rows))
    tps = lambda r: float(r["report.throughput_tokens_per_s"])
    for m in models:
        for c in contexts:
            k = f"{int(c) // 1024}K"
            lines = ["| policy | format | KV GiB / socket | largest batch | "
                     "tokens/s | KV upkeep per step (GFLOP, MB) | binds | "
                     "with CLA 2: batch, tokens/s |",
                     "|" + " --- |" * 8]
            for p in policies:
                for fm in formats:
                    r, r2 = by[(m, c, p, fm, "1")], by[(m, c, p, fm, "2")]
                    lines.append(
                        f"| `{p}` | `{fm}` | "
                        f"{float(r['report.kv_cache_bytes_per_socket']) / 2**30:.1f} | "
                        f"{r['report.batch']} | {tps(r):.0f} | "
                        f"{float(r['report.kv_upkeep.flops_per_step']) / 1e9:.2f}, "
                        f"{float(r['report.kv_upkeep.bytes_per_step']) / 1e6:.1f} | "
                        f"{r['report.roofline.binding']} | "
                        f"{r2['report.batch']}, {tps(r2):.0f} |")
            g[f"{m}-{k}"] = "\n" + "\n".join(lines) + "\n"
            base = by[(m, c, "full", "bf16", "1")]
            best = max((r for r in rows if r["model"] == m and
                        r["context"] == c), key=tps)
            g[f"{m}-{k}-best"] = (
                f"`{best['kv']}` with `{best['kv_format']}` and CLA "
                f"{best['cla']}: {best['report.batch']} sequences, "
                f"{tps(best):.0f} tokens/s against {base['report.batch']} "
                f"and {tps(base):.0f} with `full` at bf16")
    listing = b.command("list", "--kv")
    g["accuracy"] = ("\n```\n" + listing[listing.index(
        "Published accuracy"):] + "```\n")
    if b.write:
        copy_plots(out, {
            name: "kv-methods-" + name[len("kv_methods-"):].replace(
                "_on_sn40l-16", "")
            for name in os.listdir(os.path.join(out, "plots"))
            if name.startswith("kv_methods") and name.endswith(".svg")})
    return g


#
# docs/Serving.md: a replayed trace and a generated load
#

SERVE = ("run", "--serve", "--model", "deepseek-r1", "--chip", "sn40l-16",
         "--context", "16384", "--batch", "max")


def serving(b):
    g = {}
    # The page's request file, written where the page's command reads it.
    with open(os.path.join(ROOT, "docs", "Serving.md")) as f:
        m = re.search(r"cat > reqs.csv <<'EOF'\n(.*?)EOF\n", f.read(), re.S)
    if not m:
        sys.exit("docs.py: docs/Serving.md has no `cat > reqs.csv` block")
    with open(os.path.join(b.tmp, "reqs.csv"), "w") as f:
        f.write(m.group(1))
    out = b.command(*SERVE, "--trace-requests", "reqs.csv", cwd=b.tmp)
    g["replay"] = "\n```\n" + out + "```\n"
    g["schedules"], g["chunk-cost"] = serving_schedules(b)
    g["serving-limits"] = serving_limits(b)
    g.update(serving_models(b))
    if b.write:
        # docs/images/r1-serving-occupancy.svg: the page's generated load,
        # traced and drawn by `snapflow trace --svg` as the page says.
        trace = os.path.join(b.tmp, "serve-trace.json")
        b.command(*SERVE, "--rate", "0.5", "--requests", "300",
                  "--prompt-tokens", "4096", "--output-tokens", "512",
                  "--trace", trace)
        b.command("trace", trace, "--svg",
                  os.path.join(ROOT, "docs", "images",
                               "r1-serving-occupancy.svg"))
    r = b.report(*SERVE, "--rate", "0.5", "--requests", "300",
                 "--prompt-tokens", "4096", "--output-tokens", "512")
    t = r["ttft_s"]
    g["generated"] = (
        f"makespan {r['makespan_s']:.0f} s, "
        f"{r['throughput_tokens_per_s']:.0f} output tokens/s, TTFT "
        f"p50/p90/p99 {t['p50']:.2f}/{t['p90']:.2f}/{t['p99']:.2f} s, TPOT "
        f"p50 {r['tpot_s']['p50'] * 1e3:.0f} ms, decode slot use "
        f"{100 * r['decode_slot_utilization']:.1f}%, KV held per socket peak "
        f"{r['kv_live_bytes_per_socket']['peak'] / 2**30:.2f} GiB against "
        f"{r['kv_allocated_bytes_per_socket'] / 2**30:.2f} GiB allocated")
    return g


def serving_limits(b):
    """The build's errors for a load outside its ranges (docs/Serving.md,
    "What a load may be")."""
    with open(os.path.join(b.tmp, "far.csv"), "w") as f:
        f.write("arrival_s,prompt_tokens,output_tokens\n0,100,3\n"
                "1e15,9223372036854775807,3\n")
    base = ("run", "--serve", "--model", "llama-3.2-1b", "--chip", "tiny",
            "--context", "2048", "--batch", "1")
    text = b.transcript([
        (*base, "--trace-requests", "far.csv"),
        (*base, "--rate", "1e-300"),
        (*base, "--requests", "1000000000"),
        (*base, "--rate", "0.001", "--requests", "1000000"),
        (*base, "--length-spread", "nan"),
    ], cwd=b.tmp, keep=1)
    # The page's table of ranges says what these errors say.
    with open(os.path.join(ROOT, "docs", "Serving.md")) as f:
        page = f.read()
    page = page[page.index("## What a load may be"):]
    numbers = lambda t: {float(x.replace(",", "")) for x in
                         re.findall(r"\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?", t)}
    for row, error in [("| `arrival_s`", "arrival_s must be seconds from"),
                       ("| `--rate`", "--rate must be from"),
                       ("| requests in a file", "--requests must be from")]:
        cell = page[page.index(row):].split("\n")[0].split("|")[2]
        said = text[text.index(error):].split("\n")[0].split(", got")[0]
        if not numbers(said) <= numbers(cell) | {0.0, 1.0}:
            sys.exit(f"docs.py: docs/Serving.md's range {cell.strip()!r} "
                     f"disagrees with the build: {said!r}")
    return text


#
# docs/Serving.md, "A study": four models on one node, three policies
#

MODELS_STUDY = ("run", "--serve", "--model",
                "llama-3.1-70b,llama-3.1-8b,deepseek-v2-lite,llama-3.2-1b",
                "--chip", "sn40l-16", "--context", "131072", "--rate", "0.05",
                "--load-period", "600", "--load-amplitude", "1",
                "--duration", "3600", "--prompt-tokens", "4096",
                "--output-tokens", "256")
# static holds all four at 16 slots each; the caching policies give each 32,
# which HBM cannot hold for all four at once.
MODELS_POLICIES = [("static", ("--batch", "16")),
                   ("on-demand", ("--batch", "32")),
                   ("prewarm", ("--batch", "32", "--forecast-period", "600"))]
MODELS_PLOT = os.path.join("docs", "images", "serving-models-hbm")
# The line styles of the sweep plots (driver/lib/Driver/Gnuplot.cpp,
# lineStyle): colour-blind-safe colours, each with a dash pattern, a point
# type and a width, so lines differ also in grey and where they coincide.
LINE_STYLES = [("#0072B2", "1", 7, 3.0), ("#D55E00", "(10,5)", 5, 2.7),
               ("#009E73", "(3,4)", 9, 2.5), ("#CC79A7", "(12,4,3,4)", 13, 2.3),
               ("#E69F00", "(18,6)", 11, 2.1), ("#56B4E9", "(6,3)", 6, 1.9),
               ("#000000", "(12,3,3,3,3,3)", 4, 1.7),
               ("#882255", "(2,3)", 8, 1.5)]


def line_style(i):
    c, dt, pt, lw = LINE_STYLES[i % len(LINE_STYLES)]
    return f"lc rgb '{c}' pt {pt} lw {lw} dt {dt}"

MODELS_PLOT_S = 600  # the plot's window: the load's first period


def models_args(policy, extra):
    return (*MODELS_STUDY, "--model-cache", policy, *extra)


def models_run(b, policy, extra):
    """The report and the CSV rows of one policy's run (cached)."""
    key = ("models-study", policy)
    if key not in b.cache:
        rep = os.path.join(b.tmp, f"models-{policy}.json")
        occ = os.path.join(b.tmp, f"models-{policy}.csv")
        b._run((*models_args(policy, extra), "--report", rep, "--csv", occ))
        with open(rep) as f, open(occ) as g:
            b.cache[key] = (json.load(f), list(csv.DictReader(g)))
    return b.cache[key]


def models_command(policy, extra):
    """The page's command for one policy: the study's flags, wrapped."""
    args, units = list(models_args(policy, extra)), []
    # A flag and its value stay on one line.
    for a in args:
        if units and units[-1].startswith("--") and " " not in units[-1] \
                and not a.startswith("--"):
            units[-1] += " " + a
        else:
            units.append(a)
    lines, line = [], "build/bin/snapflow"
    for a in units:
        if len(line) + len(a) + 1 > 76:
            lines.append(line + " \\")
            line = "    " + a
        else:
            line += " " + a
    return "\n".join(lines + [line])


def serving_models(b):
    g = {}
    runs = {p: models_run(b, p, e) for p, e in MODELS_POLICIES}
    g["models-commands"] = "\n```sh\n" + "\n".join(
        models_command(p, e) + " \\\n    --report " + p + ".json --csv " +
        p + ".csv" for p, e in MODELS_POLICIES) + "\n```\n"
    rows = ["| model | HBM per socket, 16 / 32 slots | " +
            " | ".join(f"{p}: TTFT p50 / p99 (s)" for p, _ in MODELS_POLICIES)
            + " | on-demand / prewarm: switches (prewarms), mean switch "
            "wait (s) |", "|" + " --- |" * (3 + len(MODELS_POLICIES))]
    static, ondemand, prewarm = (runs[p][0] for p, _ in MODELS_POLICIES)
    for k, m in enumerate(static["models"]):
        cells = [m["model"], f"{m['hbm_bytes_per_socket'] / 2**30:.1f} / "
                 f"{ondemand['models'][k]['hbm_bytes_per_socket'] / 2**30:.1f}"
                 " GiB"]
        for p, _ in MODELS_POLICIES:
            t = runs[p][0]["models"][k]["ttft_s"]
            cells.append(f"{t['p50']:.3f} / {t['p99']:.3f}")
        od, pw = ondemand["models"][k], prewarm["models"][k]
        cells.append(f"{od['switches']}, {od['switch_wait_s']['mean']:.3f} / "
                     f"{pw['switches']} ({pw['prewarms']}), "
                     f"{pw['switch_wait_s']['mean']:.3f}")
        rows.append("| " + " | ".join(cells) + " |")
    rows.append("| all | " + " / ".join(
        f"{sum(m['hbm_bytes_per_socket'] for m in r['models']) / 2**30:.1f}"
        for r in (static, ondemand)) + " GiB | " + " | ".join(
        f"{runs[p][0]['ttft_s']['p50']:.3f} / "
        f"{runs[p][0]['ttft_s']['p99']:.3f}" for p, _ in MODELS_POLICIES) +
        f" | {len(ondemand['switches'])} / {len(prewarm['switches'])} |")
    g["models-table"] = "\n" + "\n".join(rows) + "\n"
    # Where a caching policy's TTFT goes: copying weights, or waiting for
    # the resident model to drain.
    od = ondemand["models"]
    alone = max(m["switch_s"] for m in od)
    worst = max(od, key=lambda m: m["switch_wait_s"]["mean"])
    g["models-finding"] = (
        f"the slowest switch alone takes {alone * 1e3:.1f} ms "
        f"({max(od, key=lambda m: m['switch_s'])['model']}), yet "
        f"{worst['model']}'s requests waited {worst['switch_wait_s']['mean']:.3f}"
        f" s on average for their model, up to "
        f"{worst['switch_wait_s']['max']:.2f} s")
    g["models-hbm"] = f"{chip_value('sn40l-16', 'hbm_bytes') / 2**30:.0f} GiB"
    if b.write:
        draw_models(runs)
    return g


def draw_models(runs):
    """docs/images/serving-models-hbm.svg: each policy's HBM by model over
    the load's first period, stacked (its data and gnuplot script beside)."""
    base = os.path.join(ROOT, MODELS_PLOT)
    names = [m["model"] for m in runs["static"][0]["models"]]
    with open(base + ".dat", "w") as f:
        for p, _ in MODELS_POLICIES:
            f.write(f"# {p}: time (s), then HBM per socket (GiB) stacked: "
                    + ", ".join(names) + "\n")
            prev = None
            for row in runs[p][1]:
                t = float(row["time_s"])
                if t > MODELS_PLOT_S:
                    break
                v = [float(row[f"hbm_{n}_bytes"]) / 2**30 for n in names]
                if v == prev:
                    continue
                # Steps: the old values up to t, the new ones from t.
                for vals in ([prev] if prev else []) + [v]:
                    acc, cols = 0, []
                    for x in vals:
                        acc += x
                        cols.append(f"{acc:.4g}")
                    f.write(f"{t:.6g} " + " ".join(cols) + "\n")
                prev = v
            if prev:
                f.write(f"{MODELS_PLOT_S} " + " ".join(
                    f"{sum(prev[:i + 1]):.4g}" for i in range(len(prev)))
                    + "\n")
            f.write("\n\n")
    hbm = chip_value("sn40l-16", "hbm_bytes") / 2**30
    colours = [c for c, _, _, _ in LINE_STYLES]
    panels = []
    for i, (p, _) in enumerate(MODELS_POLICIES):
        layers = []
        for j, n in enumerate(names):
            lo = "(0)" if j == 0 else f"{j + 1}"
            layers.append(f"'{base}.dat' index {i} using 1:{lo}:{j + 2} "
                          f"with filledcurves fc rgb '{colours[j]}' "
                          f"title '{n}'")
        layers.append(f"{hbm} with lines lc rgb '#000000' dt 2 lw 2 "
                      f"title 'HBM capacity per socket'")
        panels.append(f"set title '{p}'\n"
                      + ("set key outside right top Left reverse\n" if i == 0
                         else "unset key\n")
                      + "plot " + ", \\\n     ".join(layers))
    script = f"""set terminal svg size 1080,760 dynamic noenhanced font 'sans,12' background '#ffffff'
set output '{base}.svg'
set multiplot layout 3,1 title 'HBM per socket by model, four models on sn40l-16 (128K context), first {MODELS_PLOT_S} s of the load'
set grid
set xrange [0:{MODELS_PLOT_S}]
set yrange [0:{hbm * 1.1:.0f}]
set ylabel 'GiB per socket'
set rmargin 34
set style fill solid 0.8 noborder
""" + "\n".join(panels[:2]) + "\nset xlabel 'time (s)'\n" + panels[2] + \
        "\nunset multiplot\n"
    with open(base + ".gp", "w") as f:
        f.write(script.replace(ROOT + os.sep, ""))
    subprocess.run(["gnuplot", MODELS_PLOT + ".gp"], check=True, cwd=ROOT)


#
# docs/Lowering.md: the MTP table and a recorded memory plan
#

# The schedules on one generated load (docs/Serving.md, "Schedules"):
# prefill-first and chunked at three chunk sizes, at three rates.
SCHEDULE_LOAD = ("--requests", "300", "--prompt-tokens", "4096",
                 "--output-tokens", "512")
SCHEDULES = [("prefill-first", ()), ("chunked", ("--prefill-chunk", "512")),
             ("chunked", ("--prefill-chunk", "1024")),
             ("chunked", ("--prefill-chunk", "2048"))]
SCHEDULE_RATES = ["0.5", "1", "2"]
SCHEDULE_PLOT = os.path.join("docs", "images", "r1-serving-schedules")


def schedule_args(rate, schedule, extra):
    return (*SERVE, "--rate", rate, *SCHEDULE_LOAD,
            "--schedule", schedule, *extra)


def serving_schedules(b):
    points = [(rate, name, extra) for rate in SCHEDULE_RATES
              for name, extra in SCHEDULES]
    b.prefetch([schedule_args(*p) for p in points])
    rows = ["| rate (requests/s) | schedule | TTFT p50 / p99 (s) | TPOT p50 "
            "(ms) | time between tokens p99 / max (ms) | output tokens/s | "
            "prefill share of the makespan |", "|" + " --- |" * 7]
    data = {}
    for rate, name, extra in points:
        r = b.report(*schedule_args(rate, name, extra))
        label = name if not extra else f"{name}, {extra[1]}-token chunks"
        t, g = r["ttft_s"], r["tbt_s"]
        rows.append(
            f"| {rate} | {label} | {t['p50']:.2f} / {t['p99']:.2f} | "
            f"{r['tpot_s']['p50'] * 1e3:.1f} | {g['p99'] * 1e3:.0f} / "
            f"{g['max'] * 1e3:.0f} | {r['throughput_tokens_per_s']:.0f} | "
            f"{100 * r['prefill_s'] / r['makespan_s']:.0f}% |")
        data.setdefault(label, []).append((rate, t["p99"], g["max"] * 1e3))
    # What a chunk costs against a decode step and the whole prefill, from
    # the step costs those runs measured (rate 1).
    first = b.report(*schedule_args("1", *SCHEDULES[0]))["step_costs"]
    small = b.report(*schedule_args("1", *SCHEDULES[1]))["step_costs"]
    whole = {c["prompt_tokens"]: c["seconds"] for c in first["prefill"]}
    chunked = {c["prompt_tokens"]: c for c in small["prefill"]}
    step = {c["context_tokens"]: c["step_seconds"] for c in first["decode"]}
    c4k = chunked[4096]
    g_cost = (
        f"the 4096-token prompt's {len(c4k['chunk_seconds'])} chunks take "
        f"{ms(min(c4k['chunk_seconds']), 1)} to "
        f"{ms(max(c4k['chunk_seconds']), 1)} ms each against a decode step "
        f"of {ms(step[min(k for k in step if k >= 4096)], 1)} ms, so that "
        f"prompt's prefill costs {ms(c4k['seconds'], 1)} ms in chunks "
        f"against {ms(whole[4096], 1)} ms whole")
    if b.write:
        draw_schedules(data)
    return "\n" + "\n".join(rows) + "\n", g_cost


def draw_schedules(data):
    """docs/images/r1-serving-schedules.svg from the table's points (its
    data and gnuplot script beside it)."""
    base = os.path.join(ROOT, SCHEDULE_PLOT)
    with open(base + ".dat", "w") as f:
        for label, pts in data.items():
            f.write(f'# "{label}": rate, TTFT p99 (s), largest gap between '
                    "tokens (ms)\n")
            for rate, ttft, gap in pts:
                f.write(f"{rate} {ttft:.6g} {gap:.6g}\n")
            f.write("\n\n")
    labels = list(data)
    # Two panels of equal width, the legend right of both, outside the data.
    plots = lambda col, keyed: ", ".join(
        f"'{base}.dat' index {i} using 1:{col} with linespoints ps 1 "
        f"{line_style(i)} " + (f"title '{label}'" if keyed else "notitle")
        for i, label in enumerate(labels))
    script = f"""set terminal svg size 1200,440 dynamic noenhanced font 'sans,12' background '#ffffff'
set output '{base}.svg'
set multiplot title 'DeepSeek-R1 on sn40l-16, 16K context, 4K prompts, 512 outputs: prefill-first against chunked' font 'sans,13'
set grid
set tmargin at screen 0.86
set bmargin at screen 0.14
set xlabel 'request rate (requests/s)'
set lmargin at screen 0.07
set rmargin at screen 0.38
unset key
set logscale y
set ylabel 'TTFT p99 (s)'
plot {plots(2, False)}
unset logscale y
set lmargin at screen 0.46
set rmargin at screen 0.77
set yrange [0:*]
set ylabel 'largest gap between tokens (ms)'
set key at screen 0.79,0.86 left top Left reverse samplen 5 spacing 1.25
plot {plots(3, True)}
unset multiplot
"""
    with open(base + ".gp", "w") as f:
        f.write(script.replace(ROOT + os.sep, ""))
    # Paths in the script are relative to the checkout.
    subprocess.run(["gnuplot", SCHEDULE_PLOT + ".gp"], check=True, cwd=ROOT)


def lowering(b):
    g = {}
    rows = ["| N | accepted tokens / step / sequence | FLOPs / step / socket "
            "| off-chip bytes read / step / socket | KV bytes / socket "
            "| weights bytes / socket | max batch |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    reps = []
    for n in range(3):
        r = b.compile("--model", "deepseek-r1", "--batch", "8", "--context",
                      "131072", "--mtp", str(n), "--mtp-acceptance", "0.8")
        reps.append(r)
        tokens = r["accepted_tokens_per_step_per_sequence"]
        shown = f"{tokens:g}"
        if repr(float(tokens)) != shown and str(tokens) != shown:
            shown += f" (printed `{tokens!r}`)"
        rows.append(
            f"| {n} | {shown} | {r['flops_per_step_per_socket']:,} | "
            f"{r['offchip_bytes_read_per_step_per_socket']:,} | "
            f"{r['kv_cache_bytes_per_socket']:,} | "
            f"{r['weights_bytes_per_socket']:,} | "
            f"{r['max_batch_that_fits']} |")
    g["mtp"] = "\n" + "\n".join(rows) + "\n"
    g["mtp-weights"] = (f"{reps[1]['weights_bytes_per_socket'] - reps[0]['weights_bytes_per_socket']:,}")
    # The memory plan recorded when the program does not fit.
    ir = b.command("import", "--model", "llama-3.1-8b", "--batch", "16",
                   "--prompt", "16", "--context", "131072")
    p = subprocess.run([b.opt, "--assign-target=chip=sn40l",
                        "--plan-memory=require-fit=false"], input=ir,
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"docs.py: snapflow-opt --plan-memory failed:\n{p.stderr}")
    # The decode function's plan: the one that does not fit.
    plans = [m for m in re.findall(
        r"df\.memory_plan = #df\.memory_plan<[^\n]*?>(?=[,}])", p.stdout)
        if "diagnostic" in m]
    if len(plans) != 1:
        sys.exit("docs.py: expected one unfit df.memory_plan from "
                 "snapflow-opt, got %d" % len(plans))
    g["memory-plan"] = "\n```mlir\n" + plans[0] + "\n```\n"
    # What `snapflow compile` prints.
    out = b.command("compile", "--model", "llama-3.1-8b", "--chip", "sn40l",
                    "--batch", "1", "--context", "4096", "--kv", "full")
    g["compile-stdout"] = "\n```\n" + out + "```\n"
    # A whole 128K-token R1 prompt in one graph: the activations it spills.
    r = b.compile("--model", "deepseek-r1", "--chip", "sn40l-16", "--phase",
                  "prefill", "--batch", "1", "--context", "131072",
                  "--prefill-chunk", "131072")
    m = re.search(r"spilled activations ([0-9.]+ GiB)", r.get("diagnostic", ""))
    if not m:
        sys.exit("docs.py: the whole-prompt R1 prefill no longer spills "
                 f"activations: {r.get('diagnostic')!r}")
    g["prefill-spill"] = m.group(1)
    return g


#
# docs/Models.md: parameter counts
#

def models(b):
    rows = ["| model | `params_total` | `params_active` | weights "
            "(`snapflow info`) |", "| --- | --- | --- | --- |"]
    for model in ("llama-3.2-1b", "llama-3.1-8b", "llama-3.1-70b",
                  "deepseek-v2-lite", "deepseek-r1"):
        info = json.loads(b.command("info", "--model", model, "--chip",
                                    "sn40l-16", "--json"))
        text = b.command("info", "--model", model, "--chip", "sn40l-16")
        m = re.search(r"^  weights +([0-9.]+ [KMGT]iB)", text, re.M)
        if not m:
            sys.exit(f"docs.py: no weights line in `snapflow info --model "
                     f"{model}`")
        rows.append(f"| `{model}` | {info['params_total']:,} | "
                    f"{info['params_active']:,} | {m.group(1)} |")
    block = ("--model", "block-transformer-1.2b", "--context", "32768",
             "--batch", "8", "--kv", "snapstream:ratio=4")
    bt = json.loads(b.command("info", *block, "--json"))
    return {
        "params": "\n" + "\n".join(rows) + "\n",
        "block-params": f"{bt['params_total']:,}",
        # The output up to its per-batch totals: what the text discusses.
        "block-info": "\n```\n$ snapflow info " + " ".join(block) + "\n" +
                      "\n".join(b.command("info", *block).splitlines()[:6])
                      + "\n```\n",
    }


#
# docs/ArchConfig.md: fingerprints
#

def archconfig(b):
    rows = ["| chip | fingerprint |", "| --- | --- |"]
    for chip in ("sn40l", "sn40l-16", "tiny"):
        rows.append(f"| `{chip}` | `{fingerprint(b, chip)}` |")
    rows.append("| `sn40l.yaml` with `hbm_bytes_per_s: 0.8e+12` | "
                f"`{fingerprint(b, half_hbm_chip(b))}` |")
    return {"fingerprints": "\n" + "\n".join(rows) + "\n",
            **archconfig_what_if(b)}


def half_hbm_chip(b):
    """sn40l.yaml with half the HBM bandwidth, the docs' what-if example."""
    path = os.path.join(b.tmp, "half", "sn40l.yaml")
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(os.path.join(ROOT, "arch", "chips", "sn40l.yaml")) as f:
            text = f.read()
        text = text.replace("    value: 1.6e+12", "    value: 0.8e+12", 1)
        with open(path, "w") as f:
            f.write(text)
    return path


def what_if(b):
    """docs/Simulator.md: the chip a program runs on, from the setup of
    tests/Sim/target.test."""
    d = os.path.join(b.tmp, "what-if")
    if not os.path.exists(d):
        os.makedirs(d)
        b.command("compile", "--model", "llama-3.1-8b", "--chip",
                  half_hbm_chip(b), "--batch", "1", "--context", "4096",
                  "--kv", "full", "-o", os.path.join(d, "slow.mlir"))
        b.command("compile", "--model", "llama-3.2-1b", "--chip", "sn40l-16",
                  "--batch", "1", "--context", "4096", "--kv", "full", "-o",
                  os.path.join(d, "p16.mlir"))
    g = {"what-if": b.transcript([
        ("simulate", "slow.mlir", "--steps", "4"),
        ("simulate", "slow.mlir", "--chip", "sn40l"),
        ("simulate", "slow.mlir", "--what-if-chip", "sn40l", "--steps", "4"),
        ("simulate", "p16.mlir", "--what-if-chip", "sn40l")], cwd=d)}
    slow = b.report("simulate", "slow.mlir", "--steps", "4", cwd=d)
    fast = b.report("simulate", "slow.mlir", "--what-if-chip", "sn40l",
                    "--steps", "4", cwd=d)
    g["slow-fast"] = (f"gives {num(slow['throughput_tokens_per_s'])} "
                      f"tokens/s, the built-in `sn40l` "
                      f"{num(fast['throughput_tokens_per_s'])} tokens/s")
    return g


def simulator(b):
    d = os.path.join(b.tmp, "csv")
    os.makedirs(d, exist_ok=True)
    b.command("compile", "--model", "llama-3.1-8b", "--chip", "sn40l",
              "--batch", "1", "--context", "4096", "--kv", "full", "-o",
              os.path.join(d, "l8.mlir"))
    b.command("simulate", "l8.mlir", "--csv", "mem.csv", cwd=d)
    with open(os.path.join(d, "mem.csv")) as f:
        # The revision changes with every commit; the page shows its place.
        head = [re.sub(r" \([0-9a-f]+(-dirty)?\)$| \(unknown\)$", " (...)", line)
                for line in f.read().splitlines()[:4]]
    out = b.command("run", "--model", "llama-3.2-1b", "--chip", "tiny",
                    "--context", "2048", "--batch", "1", "--kv", "full",
                    "--steps", "4", "--profile")
    table = out[out.index("profile of one"):]
    return {"what-if": what_if(b)["what-if"],
            "csv": "\n```\n" + "\n".join(head) + "\n```\n",
            "profile-table": "\n```\n$ snapflow run --model llama-3.2-1b "
                             "--chip tiny --context 2048 --batch 1 --kv full "
                             "--steps 4 --profile\n  ...\n" + table +
                             "```\n"}


def archconfig_what_if(b):
    return {"slow-fast": what_if(b)["slow-fast"]}


def fingerprint(b, chip):
    rep = b.compile("--model", "llama-3.2-1b", "--chip", chip, "--tp", "1",
                    "--context", "256", "--batch", "1", "--kv", "full")
    return rep["chip_fingerprint"]


PAGES = {
    "docs/Validation.md": validation,
    "README.md": readme,
    "docs/Sweeps.md": sweeps,
    "docs/ArchConfig.md": archconfig,
    "docs/Serving.md": serving,
    "docs/Simulator.md": simulator,
    "docs/Models.md": models,
    "docs/Lowering.md": lowering,
    "docs/KVMethods.md": kv_methods,
}
# Pages that quote chip fingerprints in transcripts.
FINGERPRINT_PAGES = ["docs/ArchConfig.md", "docs/Simulator.md",
                     "docs/Lowering.md", "docs/Dialects/Dataflow.md",
                     "README.md"]


def wall(text):
    """Text with wall-clock figures masked: they are not the model's."""
    text = re.sub(r"[0-9.]+ s wall", "N s wall", text)
    text = re.sub(r"(\ncompiled [^\n]*\)) in [0-9.]+ s\n", r"\1 in N s\n",
                  text)
    return re.sub(r"compiled in [0-9.]+ s, timed in one SystemC run of "
                  r"[0-9.]+ s; loop [0-9.]+ s", "compiled in N s, timed in "
                  "one SystemC run of N s; loop N s", text)


def process(b, page, write):
    path = os.path.join(ROOT, page)
    with open(path) as f:
        text = f.read()
    values = PAGES[page](b)
    problems = []
    seen = set()

    def replace(m):
        name, old = m.group(1), m.group(2)
        seen.add(name)
        if name not in values:
            problems.append(f"{page}: gen:{name} is not a figure "
                            "scripts/docs.py knows")
            return m.group(0)
        new = values[name]
        if wall(old) != wall(new):
            if write:
                return f"<!--gen:{name}-->{new}<!--/gen-->"
            diff = "".join(difflib.unified_diff(
                old.splitlines(True), new.splitlines(True),
                "page", "build", n=0)) if "\n" in old + new else \
                f"  page:  {old}\n  build: {new}\n"
            problems.append(f"{page}: gen:{name} differs from the build:\n"
                            + diff.rstrip("\n"))
        return m.group(0)

    new_text = MARK.sub(replace, text)
    for name in sorted(set(values) - seen):
        problems.append(f"{page}: the build gives gen:{name}, which the page "
                        "does not mark")
    if write and new_text != text:
        with open(path, "w") as f:
            f.write(new_text)
    return problems


def check_fingerprints(b):
    known = {fingerprint(b, c) for c in ("sn40l", "sn40l-16", "tiny")}
    known.add(fingerprint(b, half_hbm_chip(b)))
    problems = []
    for page in FINGERPRINT_PAGES:
        path = os.path.join(ROOT, page)
        if not os.path.exists(path):
            problems.append(f"{page}: no such page (scripts/docs.py "
                            "FINGERPRINT_PAGES)")
            continue
        with open(path) as f:
            for n, line in enumerate(f, 1):
                for fp in re.findall(r"[`(]([0-9a-f]{16})[`,)]", line):
                    if fp not in known:
                        problems.append(
                            f"{page}:{n}: fingerprint {fp} is not one the "
                            "build computes (sn40l, sn40l-16, tiny, sn40l "
                            "at half HBM bandwidth)")
    return problems


def expand(cell):
    """The report keys a table cell names: every backquoted name, with
    `a.{b,c}` brace groups expanded."""
    keys = []
    for name in re.findall(r"`([^`]+)`", cell):
        m = re.match(r"^(.*)\{([^}]*)\}(.*)$", name)
        if m:
            keys += [m.group(1) + alt + m.group(3)
                     for alt in m.group(2).split(",")]
        else:
            keys.append(name)
    return keys


def chip_text(chip, key):
    """The value text of a key of arch/chips/CHIP.yaml."""
    with open(os.path.join(ROOT, "arch", "chips", chip + ".yaml")) as f:
        text = f.read()
    m = re.search(r"^  " + key + r":\n    value: *([^\n]+)", text, re.M)
    return m.group(1).strip() if m else None


def check_chip_tables():
    """docs/ArchConfig.md's key tables quote each key's value in sn40l (and,
    in parentheses, sn40l-16's where it differs): they must be the chip
    files' values."""
    page = "docs/ArchConfig.md"
    problems = []
    with open(os.path.join(ROOT, page)) as f:
        lines = f.read().splitlines()
    for n, line in enumerate(lines, 1):
        cells = [c.strip() for c in line.split("|")]
        if len(cells) != 8 or not re.fullmatch(r"`[a-z0-9_]+`", cells[1]):
            continue
        key = cells[1].strip("`")
        m = re.fullmatch(r"(\S+)(?: \(([^)]*)\))?", cells[5])
        if not m:
            problems.append(f"{page}:{n}: cannot read the value of {key}")
            continue
        quoted = {"sn40l": m.group(1),
                  "sn40l-16": m.group(2) if m.group(2) and
                  re.fullmatch(r"[0-9.e+]+", m.group(2)) else m.group(1)}
        for chip, text in quoted.items():
            actual = chip_text(chip, key)
            if actual is None:
                problems.append(f"{page}:{n}: {key} is not a key of "
                                f"{chip}.yaml")
                continue
            try:
                same = float(text) == float(actual)
            except ValueError:
                same = text == actual
            if not same:
                problems.append(f"{page}:{n}: {key} is {text} on the page, "
                                f"{actual} in arch/chips/{chip}.yaml")
    return problems


def check_report_keys(b):
    """Every key `snapflow list --report-keys` prints has a row in
    docs/Simulator.md section 5, and every row names a real key."""
    page = "docs/Simulator.md"
    with open(os.path.join(ROOT, page)) as f:
        text = f.read()
    start = text.index("## 5. Outputs")
    section = text[start:text.index("\n## ", start + 1)]
    documented = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            documented.update(expand(line.split("|")[1]))
    schema = {line.split()[0] for line in
              b.command("list", "--report-keys").splitlines() if line.strip()}
    problems = [f"{page}: report key {k} (snapflow list --report-keys) has "
                "no row in section 5" for k in sorted(schema - documented)]
    problems += [f"{page}: section 5 documents {k}, which no report has"
                 for k in sorted(documented - schema)]
    return problems


def check_sweep_axes():
    """Every axis of driver/include/snapflow/Driver/SweepAxes.def has a row
    in docs/Sweeps.md's option table, and the page's list of results.csv's
    input columns is the table's, in its order."""
    page = "docs/Sweeps.md"
    with open(os.path.join(ROOT, "driver/include/snapflow/Driver/"
                           "SweepAxes.def")) as f:
        table = f.read()
    axes = re.findall(r'^SNAPFLOW_SWEEP_AXIS\(\w+,\s*\w+,\s*[\w<>]+,\s*'
                      r'"(\w+)",\s*"([\w-]+)"', table, re.M)
    with open(os.path.join(ROOT, page)) as f:
        text = f.read()
    problems = [f"{page}: the sweep axis --{flag} (SweepAxes.def) has no row "
                "in the option table" for _, flag in axes
                if f"| `--{flag}" not in text]
    m = re.search(r"The\s+columns are the inputs \(`index, ([^`]*)`", text)
    listed = [c.strip() for c in m.group(1).split(",")] if m else []
    if listed != [column for column, _ in axes]:
        problems.append(f"{page}: results.csv's input columns are listed as "
                        f"{', '.join(listed) or 'nothing'}; SweepAxes.def "
                        f"makes them {', '.join(c for c, _ in axes)}")
    return problems


def check_extension_counts():
    """docs/Architecture.md's extension table: the fourth column of each row
    counts the files it lists ("2: `a`, `b`"), and every file it lists
    exists (a new file, `<Name>` or `<X>`, its folder)."""
    page = "docs/Architecture.md"
    with open(os.path.join(ROOT, page)) as f:
        text = f.read()
    start = text.index("## Extension points")
    table = text[start:text.index("\n## ", start + 1)]
    problems = []
    rows = [line for line in table.splitlines() if line.startswith("| a ")]
    if not rows:
        problems.append(f"{page}: no extension table")
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        name = cells[0]
        m = re.match(r"(\d+): (.*)$", cells[3]) if len(cells) == 5 else None
        if not m:
            problems.append(f"{page}: extension row '{name}' has no file "
                            "count (N: `path`, ...)")
            continue
        paths = re.findall(r"`([^`]+)`", m.group(2))
        if int(m.group(1)) != len(paths):
            problems.append(f"{page}: extension row '{name}' counts "
                            f"{m.group(1)} files but lists {len(paths)}")
        for path in paths:
            target = os.path.dirname(path) if "<" in path else path
            if not os.path.exists(os.path.join(ROOT, target)):
                problems.append(f"{page}: extension row '{name}' names "
                                f"{path}, which does not exist")
    return problems


def check_regressions():
    """Every regression case docs/Testing.md names for a reliability defect
    exists: a gtest `Suite.Name`, a file or corpus entry, a check prefix of
    limits.test."""
    page = "docs/Testing.md"
    with open(os.path.join(ROOT, page)) as f:
        text = f.read()

    def section(heading):
        start = text.index(heading)
        end = text.find("\n## ", start + 1)
        return text[start:end if end >= 0 else len(text)]
    rows = [l for l in section("## The 29 reliability defects").splitlines()
            if re.match(r"\| \d+ \|", l)]
    problems = [] if len(rows) == 29 else [f"{page}: {len(rows)} defect rows, "
                                           "not 29"]
    # The 00b6ce5 campaign's defects (R01-R24) and issue 32's items.
    rows += [l for l in section("## Issue 32").splitlines()
             if re.match(r"\| (R\d\d|item \d+) \|", l)]
    units = ""
    for name in os.listdir(os.path.join(ROOT, "tests", "Unit")):
        with open(os.path.join(ROOT, "tests", "Unit", name)) as f:
            units += f.read()
    with open(os.path.join(ROOT, "tests", "Tools", "limits.test")) as f:
        limits = f.read()
    for row in rows:
        case = row.split("|")[3]
        for suite, test in re.findall(r"`([A-Z]\w+)\.([A-Z]\w+)`", case):
            if f"TEST({suite}, {test})" not in units:
                problems.append(f"{page}: no test {suite}.{test}")
        for path in re.findall(r"`((?:tests|fuzz)/[^`]+)`", case):
            matches = [p for p in [os.path.join(ROOT, path.rstrip("*"))]
                       if os.path.exists(p)] or [
                p for p in os.listdir(os.path.dirname(os.path.join(ROOT, path)))
                if path.endswith("*") and
                p.startswith(os.path.basename(path).rstrip("*"))]
            if not matches:
                problems.append(f"{page}: no {path}")
        if "limits.test" in case:
            for prefix in re.findall(r"limits\.test` \(([A-Z0-9, ]+)\)", case):
                for name in prefix.split(", "):
                    if f"\n{name}: " not in limits:
                        problems.append(f"{page}: limits.test has no "
                                        f"{name} check")
    return problems


# An IR excerpt a page quotes: `<!--excerpt: CMD-->` on the line before its
# ```mlir block; CMD runs (bash, the build's snapflow and snapflow-opt first
# on PATH) in a folder where the running example of docs/Lowering.md has
# been run, so `cat l1.tm.mlir` quotes one of its stages.
EXCERPT = re.compile(r"<!--excerpt: (.+?)-->\n```mlir\n(.*?)```", re.S)
# The errors a page quotes: `<!--errors: CMD ;; CMD ...-->` on the line
# before a ``` block that is exactly what the commands print (each run in
# the running example's folder, its stdout and stderr, a failure expected).
# `--write` rewrites the block from the build.
ERRORS = re.compile(r"<!--errors: (.+?)-->\n```\n(.*?)```", re.S)
IR_VALUE = re.compile(r'([\w.]+) = ("[^"]*"|-?[0-9][0-9.e+-]*(?: : \w+)?)')


def check_excerpts(b):
    """Every `key = value` of a marked IR excerpt (values trimmed to
    `...` aside) is one the command it quotes prints, so a figure in an
    excerpt cannot go stale; the running example's commands must run."""
    page = "docs/Lowering.md"
    with open(os.path.join(ROOT, page)) as f:
        lowering = f.read()
    m = re.search(r"```\n(snapflow import [^\n]*> l1\.mlir\n.*?)```",
                  lowering, re.S)
    if not m:
        return [f"{page}: no running example (snapflow import ... > l1.mlir)"]
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1",
               PATH=os.path.dirname(b.snapflow) + os.pathsep +
               os.environ.get("PATH", ""))
    problems = []
    with tempfile.TemporaryDirectory() as work:
        def run(cmd):
            return subprocess.run(["bash", "-o", "pipefail", "-c", cmd],
                                  cwd=work, env=env, capture_output=True,
                                  text=True)
        p = run("set -e\n" + m.group(1))
        if p.returncode != 0:
            return [f"{page}: the running example's commands fail:\n"
                    f"{p.stderr}"]
        for page in PAGES_WITH_EXCERPTS:
            with open(os.path.join(ROOT, page)) as f:
                text = f.read()
            rewritten = text
            for e in ERRORS.finditer(text):
                line = text[:e.start()].count("\n") + 1
                said = ""
                for cmd in e.group(1).split(";;"):
                    p = run(cmd.strip())
                    if p.returncode == 0:
                        problems.append(f"{page}:{line}: `{cmd.strip()}` "
                                        "succeeds; the page quotes its error")
                    said += p.stdout + p.stderr
                if said != e.group(2):
                    if b.write:
                        rewritten = rewritten.replace(
                            e.group(0), e.group(0)[:e.start(2) - e.start()]
                            + said + "```", 1)
                    else:
                        problems.append(
                            f"{page}:{line}: the errors quoted differ from "
                            f"what `{e.group(1)}` prints:\n--- page\n"
                            f"{e.group(2)}+++ build\n{said}")
            if rewritten != text:
                with open(os.path.join(ROOT, page), "w") as f:
                    f.write(rewritten)
                text = rewritten
            for e in EXCERPT.finditer(text):
                line = text[:e.start()].count("\n") + 1
                p = run(e.group(1))
                if p.returncode != 0:
                    problems.append(f"{page}:{line}: `{e.group(1)}` fails:\n"
                                    f"{p.stderr}")
                    continue
                have = set(IR_VALUE.findall(p.stdout))
                for key, value in IR_VALUE.findall(e.group(2)):
                    if "..." not in value and (key, value) not in have:
                        problems.append(f"{page}:{line}: the excerpt's "
                                        f"{key} = {value} is not in the "
                                        f"output of `{e.group(1)}`")
    return problems


PAGES_WITH_EXCERPTS = ["docs/Lowering.md", "docs/Dialects/Dataflow.md",
                       "docs/Dialects/LLM.md"]


# What docs/Architecture.md must name: every committed source, header,
# TableGen file, test, fuzz target, script, bench script and doc page.
LAYOUT_GLOBS = ["*/lib/*.cpp", "*/lib/*.h", "*/include/*.h", "*/include/*.td",
                "*/include/*.def", "tests/*.test", "tests/*.mlir",
                "tests/Unit/*.cpp", "fuzz/*.cpp", "scripts/*", "tools/*",
                "bench/*.sh", "docs/*.md", "cmake/*", "arch/chips/*",
                "models/configs/*"]


def expand_braces(text):
    """`a{,-b,c}.x` -> `a.x a-b.x ac.x`, innermost first."""
    brace = re.compile(r"(\S*?)\{([^{}]*)\}(\S*)")
    while True:
        m = brace.search(text)
        if not m:
            return text
        words = " ".join(m.group(1) + alt + m.group(3)
                         for alt in m.group(2).split(","))
        text = text[:m.start()] + words + text[m.end():]


def check_layout():
    """docs/Architecture.md names every file LAYOUT_GLOBS matches (by its
    name without extension; `{a,b}` lists count), so a new file cannot be
    left off the map of the tree."""
    page = "docs/Architecture.md"
    with open(os.path.join(ROOT, page)) as f:
        text = expand_braces(f.read())
    names = set(re.findall(r"[\w+-]+", text))
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True,
                           text=True).stdout.split()
    problems = []
    for path in files:
        if "/Inputs/" in path or not any(fnmatch.fnmatch(path, g)
                                         for g in LAYOUT_GLOBS):
            continue
        stem = os.path.basename(path).lstrip(".").split(".")[0]
        if stem not in names:
            problems.append(f"{page}: {path} is named nowhere on the page "
                            "(its folder map or tables)")
    with open(os.path.join(ROOT, "tests", "Unit", "CMakeLists.txt")) as f:
        units = len(re.findall(r"^snapflow_unittest\(\w", f.read(), re.M))
    said = re.search(r"`Unit/` \((\d+) binaries\)", text)
    if not said or int(said.group(1)) != units:
        problems.append(f"{page}: tests/Unit/CMakeLists.txt builds {units} "
                        "GoogleTest binaries; the page's tests row says "
                        f"{said.group(1) if said else 'nothing'}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true",
                      help="report spans that differ from the build; exit 1")
    mode.add_argument("--write", action="store_true",
                      help="rewrite the spans from the build")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"),
                    help="build directory (default: build/)")
    ap.add_argument("pages", nargs="*", help=f"pages (default: all of "
                    f"{', '.join(PAGES)})")
    args = ap.parse_args()
    pages = args.pages or list(PAGES)
    for p in pages:
        if p not in PAGES:
            sys.exit(f"docs.py: {p} has no generated figures; pages: "
                     f"{', '.join(PAGES)}")
    b = Build(os.path.abspath(args.build))
    b.write = args.write
    problems = []
    for p in pages:
        problems += process(b, p, args.write)
    if not args.pages:
        problems += check_fingerprints(b)
        problems += check_report_keys(b)
        problems += check_sweep_axes()
        problems += check_extension_counts()
        problems += check_chip_tables()
        problems += check_regressions()
        problems += check_layout()
        problems += check_excerpts(b)
    for p in problems:
        print(p)
    if problems and args.check:
        print(f"{len(problems)} problem(s); `scripts/docs.py --write` "
              "regenerates differing spans from the build, the others need "
              "an edit")
        sys.exit(1)
    print("docs: every generated figure agrees with the build"
          if not problems else "docs: rewritten from the build")


main()
