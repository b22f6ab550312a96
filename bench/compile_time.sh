#!/usr/bin/env bash
# Compile-time benchmark: `snapflow compile` of DeepSeek-R1 decode on sn40l-16
# at TP 16 (batch 8, context 131072, SnapStream ratio 4), the whole process
# wall time over RUNS runs, and the pipeline time the report records.
# Usage: bench/compile_time.sh [RUNS]   (after `make`; figures in bench/README.md)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-20}
BIN=${BIN:-build/bin/snapflow}
[ -x "$BIN" ] || { echo "build first: make" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(compile --model deepseek-r1 --chip sn40l-16 --phase decode --batch 8
      --context 131072 --tp 16 --kv snapstream:ratio=4
      -o "$tmp/out.mlir" --report "$tmp/report.json")
walls=()
pipes=()
for _ in $(seq "$RUNS"); do
  start=$(date +%s.%N)
  "$BIN" "${args[@]}" > /dev/null
  end=$(date +%s.%N)
  walls+=("$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')")
  pipes+=("$(sed -n 's/.*"compile_time_s": \([0-9.e-]*\).*/\1/p' "$tmp/report.json")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf 'runs %d  process wall median %.3f s  max %.3f s  pipeline median %.4f s\n' \
  "$RUNS" "$(median "${walls[@]}")" "$(printf '%s\n' "${walls[@]}" | sort -g | tail -1)" \
  "$(median "${pipes[@]}")"
echo "program: $(grep -c 'df.stage' "$tmp/out.mlir") stages, $(wc -c < "$tmp/out.mlir") bytes of df IR"
