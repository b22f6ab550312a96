#!/usr/bin/env bash
# Multi-socket decode benchmark (issue 9's targets): Llama-3.1-8B,
# Llama-3.1-70B and DeepSeek-R1 decode at batch 1, context 4K, full KV, on
# 1, 8 and 16 sockets of sn40l-16: step latency, roofline bound, efficiency
# (bound / step) and what binds; then the simulator's cost for DeepSeek-R1,
# TP 16, 64 steps (target: under 2 s and 500 MB). A configuration that does
# not fit its sockets is reported as such.
# Usage: bench/multisocket.sh [EXTRA FLAGS...]   (after `make`; figures in
#        bench/README.md). EXTRA FLAGS go to every run, e.g. --no-loop-overlap
#        or --set system.link_latency_ns=500.
. "$(dirname "$0")/common.sh"
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$tmp/r.json" "$1"; }
printf '%-14s %4s %10s %10s %6s  %s\n' model tp step_ms bound_ms eff binding
for model in llama-3.1-8b llama-3.1-70b deepseek-r1; do
  for tp in 1 8 16; do
    if ! "$BIN" run --model "$model" --chip sn40l-16 --tp "$tp" --batch 1 \
        --context 4096 --kv full --steps 16 --no-prefill --report "$tmp/r.json" \
        "$@" > /dev/null 2> "$tmp/err"; then
      printf '%-14s %4s %s\n' "$model" "$tp" "does not fit: $(sed 's/.*needs/needs/;s/;.*//' "$tmp/err" | head -1)"
      continue
    fi
    printf '%-14s %4s %10.3f %10.3f %6.2f  %s\n' "$model" "$tp" \
      "$(field "r['step_latency_s']*1e3")" \
      "$(field "r['roofline']['step_latency_lower_bound_s']*1e3")" \
      "$(field "r['roofline_efficiency']")" "$(field "r['roofline']['binding']")"
  done
done
/usr/bin/time -f '%e %M' -o "$tmp/time" "$BIN" run --model deepseek-r1 \
  --chip sn40l-16 --tp 16 --batch 1 --context 4096 --kv full --steps 64 \
  --no-prefill --report "$tmp/r.json" "$@" > /dev/null
read -r wall rss < "$tmp/time"
printf 'deepseek-r1 TP 16, 64 steps: wall %.2f s, peak RSS %.1f MB\n' "$wall" \
  "$(awk -v k="$rss" 'BEGIN {print k / 1024}')"
