"""docs/KVMethods.md: the KV methods of the literature side by side."""

import csv
import os
import sys

from docgen.models import gpt_oss_figures, models
from docgen.sweeps import copy_plots


KV_METHODS_ARGS = (
    "--model", "deepseek-r1,llama-3.1-8b", "--chip", "sn40l-16",
    "--context", "32k,128k", "--batch", "max",
    "--kv", "full,snapkv:ratio=4,snapstream:ratio=4,h2o:ratio=4,"
    "scissorhands:ratio=4,arkvale:ratio=4",
    "--kv-format", "bf16,fp8,kivi2,kivi4,quarot4,zipcache",
    "--cla", "1,2", "-j", "2")


# A sliding-window family (issue 34): gpt-oss-120b, whose even layers keep
# a 128-token ring and whose softmax has learned sinks.
WINDOW_ARGS = (
    "--model", "gpt-oss-120b", "--chip", "sn40l-16", "--context", "128k",
    "--batch", "max",
    "--kv", "full,snapkv:ratio=4,snapstream:ratio=4,h2o:ratio=4",
    "--kv-format", "bf16,fp8", "-j", "2")


def run_sweep(b, args, name):
    """The rows of `snapflow sweep ARGS -o NAME` (every point must run) and
    the command as the page shows it."""
    out = os.path.join(b.tmp, name)
    b.command("sweep", *args, "-o", out)
    with open(os.path.join(out, "results.csv")) as f:
        rows = list(csv.DictReader(f))
    bad = [r for r in rows if r["status"] != "ok"]
    if bad:
        sys.exit(f"docs.py: the sweep {name} has points that did not run: "
                 + "; ".join(f"{r['index']}: {r['reason']}" for r in bad))
    args = list(args)
    command = ("\n```sh\nbuild/bin/snapflow sweep " +
               " \\\n    ".join(" ".join(args[i:i + 2]) for i in
                                  range(0, len(args), 2)) +
               f" \\\n    -o {name}\n```\n")
    return out, rows, command


def window_family(b, g):
    _, rows, g["window-command"] = run_sweep(b, WINDOW_ARGS,
                                             "kv-methods-window")
    lines = ["| policy | format | KV GiB / socket | largest batch | "
             "tokens/s | KV upkeep per step (GFLOP, MB) | binds |",
             "|" + " --- |" * 7]
    for r in rows:
        lines.append(
            f"| `{r['kv']}` | `{r['kv_format']}` | "
            f"{float(r['report.kv_cache_bytes_per_socket']) / 2**30:.1f} | "
            f"{r['report.batch']} | "
            f"{float(r['report.throughput_tokens_per_s']):.0f} | "
            f"{float(r['report.kv_upkeep.flops_per_step']) / 1e9:.2f}, "
            f"{float(r['report.kv_upkeep.bytes_per_step']) / 1e6:.1f} | "
            f"{r['report.roofline.binding']} |")
    g["gpt-oss-120b-128K"] = "\n" + "\n".join(lines) + "\n"
    info = b.command("info", "--model", "gpt-oss-120b", "--chip",
                     "sn40l-16", "--batch", "1")
    g["gpt-oss-120b-kv"] = "\n```\n$ snapflow info --model gpt-oss-120b " \
        "--chip sn40l-16 --batch 1\n" + "\n".join(
            l for l in info.splitlines()
            if "KV cache" in l or "windowed layers" in l or
            "compresses the" in l) + "\n```\n"


def kv_methods(b):
    g = {k: v for k, v in gpt_oss_figures(b).items()
         if k in ("oss-rings", "oss-weights")}
    window_family(b, g)
    out, rows, g["command"] = run_sweep(b, KV_METHODS_ARGS, "kv-methods")
    by = {(r["model"], r["context"], r["kv"], r["kv_format"], r["cla"]): r
          for r in rows}
    models = list(dict.fromkeys(r["model"] for r in rows))
    contexts = list(dict.fromkeys(r["context"] for r in rows))
    policies = list(dict.fromkeys(r["kv"] for r in rows))
    formats = list(dict.fromkeys(r["kv_format"] for r in rows))
    tps = lambda r: float(r["report.throughput_tokens_per_s"])
    jpt = lambda r: float(r["report.energy.joules_per_token"])
    for m in models:
        for c in contexts:
            k = f"{int(c) // 1024}K"
            lines = ["| policy | format | KV GiB / socket | largest batch | "
                     "tokens/s | J/token | KV upkeep per step (GFLOP, MB) | "
                     "binds | with CLA 2: batch, tokens/s, J/token |",
                     "|" + " --- |" * 9]
            for p in policies:
                for fm in formats:
                    r, r2 = by[(m, c, p, fm, "1")], by[(m, c, p, fm, "2")]
                    lines.append(
                        f"| `{p}` | `{fm}` | "
                        f"{float(r['report.kv_cache_bytes_per_socket']) / 2**30:.1f} | "
                        f"{r['report.batch']} | {tps(r):.0f} | "
                        f"{jpt(r):.2f} | "
                        f"{float(r['report.kv_upkeep.flops_per_step']) / 1e9:.2f}, "
                        f"{float(r['report.kv_upkeep.bytes_per_step']) / 1e6:.1f} | "
                        f"{r['report.roofline.binding']} | "
                        f"{r2['report.batch']}, {tps(r2):.0f}, "
                        f"{jpt(r2):.2f} |")
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
