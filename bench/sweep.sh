#!/usr/bin/env bash
# Sweep benchmark: the 48-point grid of issue 5 (Llama-3.1-8B and DeepSeek-R1
# on sn40l-16; contexts 8K, 32K, 128K; batches 1, 4, 16, max; KV full and
# snapstream:ratio=4; 16 decode steps per point) with -j 2, timed whole
# (workers, CSV, plots, summary).
# Usage: bench/sweep.sh   (after `make`; figures in bench/README.md)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=build/bin/snapflow
[ -x "$BIN" ] || { echo "build first: make" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grid=(--model llama-3.1-8b,deepseek-r1 --chip sn40l-16 --context 8k,32k,128k
      --batch 1,4,16,max --kv full,snapstream:ratio=4 -j 2)
/usr/bin/time -f '%e %M' -o "$tmp/time" "$BIN" sweep "${grid[@]}" -o "$tmp/s" > /dev/null
read -r wall rss < "$tmp/time"
ok=$(grep -c ',ok,' "$tmp/s/results.csv" || true)
printf '48-point sweep, -j 2: wall %.2f s, %s points ok, peak RSS of the driver %.1f MB\n' \
  "$wall" "$ok" "$(awk -v k="$rss" 'BEGIN {print k / 1024}')"
