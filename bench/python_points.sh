#!/usr/bin/env bash
# Points from Python against the sweep, on the same points (issue 38's
# target: Python no slower per point). Two grids, all on sn40l-16 with 16
# decode steps a point:
#   48   bench/sweep.sh's: Llama-3.1-8B and DeepSeek-R1; contexts 8K, 32K,
#        128K; batches 1, 4, 16, max; KV full and snapstream:ratio=4
#   200  Llama-3.1-8B and DeepSeek-R1; contexts 4K, 8K, 32K, 64K, 128K;
#        batches 1, 2, 4, 8, 16; KV full, snapstream, snapkv and h2o at
#        ratio 4
# Each grid runs as `snapflow sweep -j N` and as snapflow.run calls from one
# Python process (one after another for N = 1; from N threads of a
# concurrent.futures pool otherwise). Prints each one's wall time and time
# per point; a point that does not fit counts (the sweep's row says so, the
# call raises snapflow.Error).
# The two alternate for ROUNDS rounds (default 3), each printed, then the
# best of each: this machine's load varies by 10% from one run to the next.
# Usage: bench/python_points.sh [48|200] [N]   (after `make`; default 48 1;
# figures in bench/README.md)
source "$(dirname "$0")/common.sh"
grid=${1:-48}
jobs=${2:-1}
case $grid in
  48) models=llama-3.1-8b,deepseek-r1 contexts=8192,32768,131072
      batches=1,4,16,max kvs=full,snapstream:ratio=4 ;;
  200) models=llama-3.1-8b,deepseek-r1 contexts=4096,8192,32768,65536,131072
       batches=1,2,4,8,16
       kvs=full,snapstream:ratio=4,snapkv:ratio=4,h2o:ratio=4 ;;
  *) echo "usage: bench/python_points.sh [48|200] [jobs]" >&2; exit 1 ;;
esac
# The Python side: the same points as snapflow.run calls.
cat > "$tmp/points.py" <<'PY'
import concurrent.futures, itertools, os, time
import snapflow
axis = lambda name: os.environ[name].split(",")
points = list(itertools.product(axis("MODELS"), axis("CONTEXTS"),
                                axis("BATCHES"), axis("KVS")))
jobs = int(os.environ["JOBS"])

def point(p):
    model, context, batch, kv = p
    try:
        snapflow.run(model=model, chip="sn40l-16", context=int(context),
                     batch=batch, kv=kv, steps=16, prefill=False)
        return True
    except snapflow.Error:
        return False

# From here, as the sweep's time runs from its start: the call servers
# start at the first calls and count.
start = time.perf_counter()
if jobs == 1:
    done = [point(p) for p in points]
else:
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        done = list(pool.map(point, points))
wall = time.perf_counter() - start
how = "one after another" if jobs == 1 else f"{jobs} threads"
print(f"snapflow.run from one Python process ({how}): {len(points)} points "
      f"({sum(done)} ok, {len(done) - sum(done)} refused) in {wall:.2f} s, "
      f"{1000 * wall / len(points):.1f} ms per point")
PY
rounds=${ROUNDS:-3}
for round in $(seq "$rounds"); do
  rm -rf "$tmp/s"
  start=$(date +%s.%N)
  "$BIN" sweep --model "$models" --chip sn40l-16 --context "$contexts" \
    --batch "$batches" --kv "$kvs" --steps 16 -j "$jobs" -o "$tmp/s" > /dev/null
  end=$(date +%s.%N)
  points=$(($(wc -l < "$tmp/s/results.csv") - 1))
  awk -v s="$start" -v e="$end" -v n="$points" -v j="$jobs" 'BEGIN {
    printf "snapflow sweep -j %d: %d points in %.2f s, %.1f ms per point\n",
      j, n, e - s, 1000 * (e - s) / n }'
  MODELS=$models CONTEXTS=$contexts BATCHES=$batches KVS=$kvs JOBS=$jobs \
    PYTHONPATH=build/python python3 "$tmp/points.py"
done | tee "$tmp/log"
# The best round of each.
awk -F': ' '/ms per point/ { n = split($2, w, " "); ms = w[n - 3] + 0;
    if (!($1 in best) || ms < best[$1]) best[$1] = ms }
  END { for (k in best) printf "best of %d rounds: %s, %.1f ms per point\n",
    ROUNDS, k, best[k] }' ROUNDS="$rounds" "$tmp/log" | sort
