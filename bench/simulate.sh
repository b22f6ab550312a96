#!/usr/bin/env bash
# Simulator benchmark: `snapflow run` of DeepSeek-R1 on sn40l-16 (TP 16,
# SnapStream ratio 4, batch 8, 64 decode steps) at 128K and 8K context, with
# and without fast-forwarding; wall time and peak memory (RSS) of the whole
# process, and simulated tiles per wall-second from the report.
# Usage: bench/simulate.sh   (after `make`; figures in bench/README.md)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/bin/snapflow}
[ -x "$BIN" ] || { echo "build first: make" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {
  local ctx=$1; shift
  /usr/bin/time -f '%e %M' -o "$tmp/time" "$BIN" run --model deepseek-r1 \
    --chip sn40l-16 --tp 16 --batch 8 --context "$ctx" --kv snapstream:ratio=4 \
    --steps 64 --no-prefill --report "$tmp/r.json" "$@" > /dev/null
  read -r wall rss < "$tmp/time"
  tiles=$(sed -n 's/.*"tiles_moved": \([0-9]*\).*/\1/p' "$tmp/r.json")
  tps=$(sed -n 's/.*"tiles_per_wall_second": \([0-9.e+]*\).*/\1/p' "$tmp/r.json")
  step=$(sed -n 's/.*"step_latency_s": \([0-9.e-]*\).*/\1/p' "$tmp/r.json")
  printf '%-8s %-18s wall %6.2f s  peak RSS %6.1f MB  tiles %10s  tiles/wall-s %-12s step %s s\n' \
    "$ctx" "${*:-fast-forward}" "$wall" "$(awk -v k="$rss" 'BEGIN {print k / 1024}')" \
    "$tiles" "$tps" "$step"
}
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 1; }
run 131072
run 8192
run 131072 --no-fast-forward
run 8192 --no-fast-forward
