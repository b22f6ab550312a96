#!/usr/bin/env bash
# Points from Python against the sweep: the 48-point grid of bench/sweep.sh
# (Llama-3.1-8B and DeepSeek-R1 on sn40l-16; contexts 8K, 32K, 128K;
# batches 1, 4, 16, max; KV full and snapstream:ratio=4; 16 decode steps)
# run one after another from one Python process (snapflow.run, each call a
# forked child) and by `snapflow sweep -j 1`; prints each one's wall time
# and time per point (issue 38's target: Python no slower per point).
# Usage: bench/python_points.sh   (after `make`; figures in bench/README.md)
source "$(dirname "$0")/common.sh"
start=$(date +%s.%N)
"$BIN" sweep --model llama-3.1-8b,deepseek-r1 --chip sn40l-16 \
  --context 8k,32k,128k --batch 1,4,16,max --kv full,snapstream:ratio=4 \
  --steps 16 -j 1 -o "$tmp/s" > /dev/null
end=$(date +%s.%N)
points=$(($(wc -l < "$tmp/s/results.csv") - 1))
awk -v s="$start" -v e="$end" -v n="$points" 'BEGIN {
  printf "snapflow sweep -j 1: %d points in %.2f s, %.1f ms per point\n",
    n, e - s, 1000 * (e - s) / n }'
PYTHONPATH=build/python python3 - <<'PY'
import itertools, time
import snapflow
points = list(itertools.product(
    ("llama-3.1-8b", "deepseek-r1"), (8192, 32768, 131072),
    (1, 4, 16, "max"), ("full", "snapstream:ratio=4")))
start = time.perf_counter()
ok = failed = 0
for model, context, batch, kv in points:
    try:
        snapflow.run(model=model, chip="sn40l-16", context=context,
                     batch=batch, kv=kv, steps=16, prefill=False)
        ok += 1
    except snapflow.Error:
        failed += 1
wall = time.perf_counter() - start
print(f"snapflow.run from one Python process: {len(points)} points "
      f"({ok} ok, {failed} refused) in {wall:.2f} s, "
      f"{1000 * wall / len(points):.1f} ms per point")
PY
