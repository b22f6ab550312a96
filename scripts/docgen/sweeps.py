"""docs/Sweeps.md: the context x KV-policy sweep and its plots."""

import os
import shutil

from docgen.common import ROOT


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
