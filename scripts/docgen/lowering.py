"""docs/Lowering.md: the MTP table and a recorded memory plan."""

import re
import subprocess
import sys


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
