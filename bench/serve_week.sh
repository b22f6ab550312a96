#!/usr/bin/env bash
# A week of Azure's 2024 conversation trace (issue 35): the published file
# (AzureLLMInferenceTrace_conv_1week.csv, 27,303,999 rows over 2024-05-12 to
# 05-18, docs/Serving.md) is not in git and this machine has no internet, so
# the file is generated to its published row count and span in its published
# form (TIMESTAMP with microseconds and a +00:00 offset, as the notebook
# prints it): Poisson arrivals at 27,303,999 / 7 days (45.1 requests/s), the
# token counts cycling through the 15 real rows of
# tests/Tools/Inputs/traces/azure-2023-conv.csv. It is then served on
# Llama-3.2-1B, one SN40L socket, 64 slots of 8192 tokens, read a row at a
# time (two passes). Wall time and peak RSS of the serving process.
# Usage: bench/serve_week.sh [ROWS]   (after `make`; figures in bench/README.md)
source "$(dirname "$0")/common.sh"
ROWS=${1:-27303999}
python3 bench/azure_trace.py "$tmp/week.csv" "$ROWS" 27303999 604800 \
  2024-05-12 --offset
/usr/bin/time -f '%e %M' -o "$tmp/time" "$BIN" run --serve --model llama-3.2-1b \
  --chip sn40l --context 8192 --batch 64 --trace-requests "$tmp/week.csv" > "$tmp/out"
read -r wall rss < "$tmp/time"
printf '%s rows (%s B): wall %.1f s, peak RSS %.1f MB\n' "$ROWS" \
  "$(stat -c %s "$tmp/week.csv")" "$wall" "$(awk -v k="$rss" 'BEGIN {print k / 1024}')"
grep -E '^(serving|makespan|load|overloaded|TTFT)' "$tmp/out"
