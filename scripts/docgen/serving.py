"""docs/Serving.md: a replayed trace, a generated load, the models study, the schedules."""

import csv
import json
import os
import re
import subprocess
import sys

from docgen.cluster import cluster_pages
from docgen.common import ROOT, chip_value, ms
from docgen.sweeps import LINE_STYLES, line_style


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
    g["trace-formats"] = trace_formats(b)
    g["prefix-study"] = prefix_study(b)
    out = b.command(*TRACE_RUN, *TRACE_COMMANDS[5], cwd=ROOT)
    g["overload"] = "\n```\n" + "".join(
        l + "\n" for l in out.splitlines()
        if l.startswith(("load ", "overloaded "))) + "```\n"
    g.update(serving_models(b))
    g.update(cluster_pages(b))
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
                       ("| `--rate`", "--rate must be from")]:
        cell = page[page.index(row):].split("\n")[0].split("|")[2]
        said = text[text.index(error):].split("\n")[0].split(", got")[0]
        if not numbers(said) <= numbers(cell) | {0.0, 1.0}:
            sys.exit(f"docs.py: docs/Serving.md's range {cell.strip()!r} "
                     f"disagrees with the build: {said!r}")
    return text


# One command per format, on its shipped sample (tests/Tools/Inputs/traces,
# sources in its SOURCES.md), run from the repository's root.
TRACES = "tests/Tools/Inputs/traces/"
TRACE_RUN = ("run", "--serve", "--model", "llama-3.2-1b", "--chip", "sn40l",
             "--batch", "4")
TRACE_COMMANDS = [
    ("--context", "8192", "--trace-requests", TRACES + "azure-2023-conv.csv"),
    ("--context", "8192", "--trace-requests", TRACES + "azure-2024-code.csv"),
    ("--context", "8192", "--trace-requests", TRACES + "burstgpt.csv"),
    ("--context", "8192", "--trace-requests", TRACES + "splitwise-test.csv"),
    ("--context", "8192", "--trace-requests",
     TRACES + "vidur-splitwise-conv.csv"),
    ("--trace-requests", TRACES + "mooncake-conversation.jsonl"),
    ("--context", "4096", "--trace-requests", TRACES + "azure-2023-code.csv",
     "--overlong", "skip"),
]


def trace_formats(b):
    """Each public format's sample served, the summary's first line (and
    the load line for the overloaded Mooncake sample)."""
    return b.transcript([TRACE_RUN + c for c in TRACE_COMMANDS], cwd=ROOT,
                        keep=1)


# The prefix-caching study (docs/Serving.md, "Prefix caching"): Mooncake's
# conversation trace, its first 500 requests, on DeepSeek-R1 at 128K.
PREFIX_RUN = ("run", "--serve", "--model", "deepseek-r1", "--chip",
              "sn40l-16", "--context", "131072", "--batch", "max",
              "--trace-requests",
              TRACES + "mooncake-conversation-500.jsonl")
PREFIX_KV = [("full", ("--kv", "full")), ("snapstream (default)", ())]
PREFIX_CACHE = [("off", ("--no-prefix-cache",)),
                ("HBM only", ("--prefix-tiers", "hbm")),
                ("HBM, then DDR", ())]


def prefix_study(b):
    """The table of the prefix-caching study, one row per policy and cache."""
    gib = lambda x: x / 2**30
    rows = ["| `--kv` | prefix cache | slots | prompt tokens reused | "
            "TTFT p50 / p99 (s) | TPOT p50 / p99 (ms) | prefill saved (s) | "
            "tier moves (s) | cache held, mean: HBM / DDR (GiB) | makespan (s) "
            "|",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for kv, kv_args in PREFIX_KV:
        for cache, cache_args in PREFIX_CACHE:
            r = b.report(*PREFIX_RUN, *kv_args, *cache_args, cwd=ROOT)
            p = r["prefix_cache"]
            t, o = r["ttft_s"], r["tpot_s"]
            if p is None:
                reuse = saved = moves = held = "-"
            else:
                h = p["held_bytes_per_socket"]
                reuse = f"{100 * p['hit_rate']:.1f}%"
                saved = f"{p['prefill_saved_s']:.1f}"
                moves = f"{p['move_s']:.1f}"
                held = (f"{gib(h['hbm']['mean']):.2f} / "
                        f"{gib(h['ddr']['mean']):.1f}")
            rows.append(
                f"| {kv} | {cache} | {r['slots']} | {reuse} | "
                f"{t['p50']:.1f} / {t['p99']:.1f} | "
                f"{o['p50'] * 1e3:.1f} / {o['p99'] * 1e3:.1f} | {saved} | "
                f"{moves} | {held} | {r['makespan_s']:.0f} |")
    return "\n" + "\n".join(rows) + "\n"


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
