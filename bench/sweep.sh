#!/usr/bin/env bash
# Sweep benchmark: the 48-point grid of issue 5 (Llama-3.1-8B and DeepSeek-R1
# on sn40l-16; contexts 8K, 32K, 128K; batches 1, 4, 16, max; KV full and
# snapstream:ratio=4; 16 decode steps per point) with -j 2, timed whole
# (compiles, point processes, CSV, plots, summary): wall time, CPU time
# (user + system of the sweep and every process it waited for) and CPU per
# point, as the median of RUNS runs (default 3).
# Usage: bench/sweep.sh [RUNS]   (after `make`; figures in bench/README.md)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/bin/snapflow}
RUNS=${1:-3}
[ -x "$BIN" ] || { echo "build first: make" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grid=(--model llama-3.1-8b,deepseek-r1 --chip sn40l-16 --context 8k,32k,128k
      --batch 1,4,16,max --kv full,snapstream:ratio=4 -j 2)
for i in $(seq "$RUNS"); do
  rm -rf "$tmp/s"
  /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$BIN" sweep "${grid[@]}" -o "$tmp/s" > /dev/null
  read -r wall user sys rss < "$tmp/time"
  ok=$(grep -c ',ok,' "$tmp/s/results.csv" || true)
  points=$(($(wc -l < "$tmp/s/results.csv") - 1))
  echo "$wall $(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}') $rss $ok $points"
done > "$tmp/runs"
sort -k2 -g "$tmp/runs" | awk -v n="$RUNS" 'NR == int((n + 1) / 2) {
  printf "%d-point sweep, -j 2 (median of %d by CPU): wall %.2f s, CPU %.2f s = %.1f ms per point, %d points ok, peak RSS of the sweep %.1f MB\n",
    $5, n, $1, $2, 1000 * $2 / $5, $4, $3 / 1024 }'
