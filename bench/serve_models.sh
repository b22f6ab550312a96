#!/usr/bin/env bash
# Multi-model serving benchmark (issue 12): the study of docs/Serving.md,
# four models (Llama-3.1-70B, -8B, DeepSeek-V2-Lite, Llama-3.2-1B) on
# sn40l-16 at 128K context, one periodic load over 3600 s. Static (16 slots
# each) times each model's graphs once; on-demand (32 slots each) also times
# every graph again beside a background switch, and each model's switch
# alone, in the same SystemC run: the cost of simulating the switches.
# Usage: bench/serve_models.sh   (after `make`; figures in bench/README.md)
. "$(dirname "$0")/common.sh"
for run in "static 16" "on-demand 32"; do
  set -- $run
  /usr/bin/time -f '%e %M' -o "$tmp/time" "$BIN" run --serve \
    --model llama-3.1-70b,llama-3.1-8b,deepseek-v2-lite,llama-3.2-1b \
    --chip sn40l-16 --context 131072 --rate 0.05 --load-period 600 \
    --load-amplitude 1 --duration 3600 --prompt-tokens 4096 \
    --output-tokens 256 --model-cache "$1" --batch "$2" \
    --report "$tmp/r.json" > /dev/null
  read -r wall rss < "$tmp/time"
  python3 - "$1" "$wall" "$rss" "$tmp/r.json" <<'PY'
import json, sys
policy, wall, rss, path = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
r = json.load(open(path))
w = r["wall_time_s"]
print(f"{policy}: {len(r['requests'])} requests, "
      f"{len(r['switches'])} switches: wall {wall:.2f} s, peak RSS {rss / 1024:.1f} MB; "
      f"compile {w['compile']:.2f} s, SystemC {w['simulate']:.2f} s, loop {w['loop']:.3f} s")
PY
done
