#!/usr/bin/env bash
# An hour of a public trace on 8 nodes (issue 36): Azure's 2023
# conversation trace (AzureLLMInferenceTrace_conv.csv, 19,366 requests over
# an hour) served by DeepSeek-R1 on 8 sn40l-16 nodes, 32 slots of 8192
# tokens each, first as 8 replicas behind the least-loaded router, then as
# 4 prefill and 4 decode nodes. Give the file as published to read it; else
# an hour is generated in its published form (Poisson at 19,366 requests an
# hour, the token counts cycling through the 15 real rows of
# tests/Tools/Inputs/traces/azure-2023-conv.csv). Wall time (one process,
# one core) and peak RSS of each run.
# Usage: bench/serve_cluster.sh [AzureLLMInferenceTrace_conv.csv]
#        (after `make`; figures in bench/README.md)
source "$(dirname "$0")/common.sh"
TRACE=${1:-}
if [ -z "$TRACE" ]; then
  TRACE="$tmp/hour.csv"
  python3 bench/azure_trace.py "$TRACE" 19366 19366 3600 \
    "2023-11-16 18:15:46"
fi
for cluster in "--nodes 8" "--disaggregate 4:4"; do
  # shellcheck disable=SC2086
  /usr/bin/time -f '%e %M' -o "$tmp/time" "$BIN" run --serve \
    --model deepseek-r1 --chip sn40l-16 --context 8192 --batch 32 \
    --overlong skip --trace-requests "$TRACE" $cluster > "$tmp/out"
  read -r wall rss < "$tmp/time"
  printf '%s: %s requests, wall %.2f s, peak RSS %.1f MB\n' "$cluster" \
    "$(grep -oE '^serving [0-9]+' "$tmp/out" | cut -d' ' -f2)" "$wall" \
    "$(awk -v k="$rss" 'BEGIN {print k / 1024}')"
  grep -E '^(makespan|TTFT|TPOT)' "$tmp/out"
done
