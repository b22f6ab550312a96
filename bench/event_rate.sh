#!/usr/bin/env bash
# The simulator's event rate without shortcuts: `snapflow run
# --no-fast-forward` of Llama-3.1-70B (TP 16, batch 8, 8K, full KV) and
# DeepSeek-R1 (TP 16, batch 8, 8K and 128K, SnapStream ratio 4), 64 decode
# steps each, RUNS times (default 5); prints the median tiles moved per
# wall-second, the wall time of that run and the tiles moved. Compare two
# builds with BIN=/other/build/bin/snapflow (the tiles moved say whether
# they simulate the same work).
# Usage: bench/event_rate.sh [RUNS]   (after `make`; figures in bench/README.md)
source "$(dirname "$0")/common.sh"
runs=${1:-5}
median() {
  local name=$1; shift
  for _ in $(seq "$runs"); do
    "$BIN" run --tp 16 --batch 8 --steps 64 --no-prefill --no-fast-forward \
      --chip sn40l-16 --report "$tmp/r.json" "$@" > /dev/null
    python3 -c "import json, sys; r = json.load(open(sys.argv[1])); print(r['tiles_per_wall_second'], r['wall_time_s'], r['tiles_moved'])" "$tmp/r.json"
  done | sort -g | sed -n "$(( (runs + 1) / 2 ))p" |
    awk -v n="$name" '{printf "%-28s tiles/wall-s %.3g  wall %.2f s  tiles %d\n", n, $1, $2, $3}'
}
median "llama-3.1-70b 8K" --model llama-3.1-70b --context 8192 --kv full
median "deepseek-r1 8K" --model deepseek-r1 --context 8192 --kv snapstream:ratio=4
median "deepseek-r1 128K" --model deepseek-r1 --context 131072 --kv snapstream:ratio=4
