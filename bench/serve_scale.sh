#!/usr/bin/env bash
# Serving at scale (issue 10's target: one million requests in under 20 s
# and 300 MB): N generated requests (default 1,000,000; Poisson at 50/s,
# prompts around 512 tokens, outputs around 64) on Llama-3.2-1B, one SN40L
# socket, 64 slots of 4096 tokens, with the JSON report (every request's
# result), the trace, the occupancy CSV and the per-request results CSV
# (--request-results) written. Wall time and peak RSS of the whole process.
# SCHEDULE=chunked serves with the chunked schedule (512-token chunks);
# OUTPUTS=none writes none of the files (the run alone: issue 35's target,
# one million requests under 5 s and 100 MB).
# Usage: [SCHEDULE=prefill-first|chunked] [OUTPUTS=all|none]
#        bench/serve_scale.sh [N]
#        (after `make`; figures in bench/README.md)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/bin/snapflow}
N=${1:-1000000}
SCHEDULE=${SCHEDULE:-prefill-first}
OUTPUTS=${OUTPUTS:-all}
[ -x "$BIN" ] || { echo "build first: make" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files=(--report "$tmp/r.json" --trace "$tmp/t.json" --csv "$tmp/m.csv"
       --request-results "$tmp/results.csv")
if [ "$OUTPUTS" = none ]; then
  files=()
  touch "$tmp/r.json" "$tmp/t.json" "$tmp/m.csv" "$tmp/results.csv"
fi
/usr/bin/time -f '%e %M' -o "$tmp/time" "$BIN" run --serve --model llama-3.2-1b \
  --chip sn40l --context 4096 --batch 64 --rate 50 --requests "$N" \
  --prompt-tokens 512 --output-tokens 64 "${files[@]}" \
  --schedule "$SCHEDULE" > "$tmp/out"
read -r wall rss < "$tmp/time"
printf '%s requests (%s): wall %.2f s, peak RSS %.1f MB; report %s B, trace %s B, csv %s B, results %s B\n' \
  "$N" "$SCHEDULE" "$wall" "$(awk -v k="$rss" 'BEGIN {print k / 1024}')" \
  "$(stat -c %s "$tmp/r.json")" "$(stat -c %s "$tmp/t.json")" "$(stat -c %s "$tmp/m.csv")" \
  "$(stat -c %s "$tmp/results.csv")"
