#!/usr/bin/env bash
# Simulator speed, two builds side by side (issue 39): each workload is run
# ROUNDS times by each build, alternating, and the median wall time of each
# is printed with the tiles moved (the same in both builds when they
# simulate the same work) and, for --no-fast-forward, tiles per wall-second.
#   make run's workload: DeepSeek-R1, sn40l-16, TP 16, 128K, SnapStream
#     ratio 4, --batch max, a 4-chunk prefill and 64 decode steps;
#   a 32K prefill and 16 decode steps of Llama-3.1-8B on sn40l-16;
#   bench/event_rate.sh's three workloads (64 decode steps, TP 16, batch 8)
#     with --no-fast-forward.
# Usage: bench/sim_speed.sh BEFORE_BIN [AFTER_BIN [ROUNDS]]
#   (AFTER_BIN defaults to build/bin/snapflow, ROUNDS to 5; figures in
#   bench/README.md)
source "$(dirname "$0")/common.sh"
before=${1:?usage: bench/sim_speed.sh BEFORE_BIN [AFTER_BIN [ROUNDS]]}
after=${2:-$BIN}
rounds=${3:-5}
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
one() { # BIN ARGS... -> "wall tiles tiles_per_wall_s"
  local bin=$1; shift
  /usr/bin/time -f '%e' -o "$tmp/t" "$bin" run "$@" --quiet --report "$tmp/r.json"
  python3 -c "import json, sys; r = json.load(open(sys.argv[1])); print(open(sys.argv[2]).read().strip(), r['tiles_moved'], r['tiles_per_wall_second'])" "$tmp/r.json" "$tmp/t"
}
median() { sort -g | awk '{a[NR] = $0} END {print a[int((NR + 1) / 2)]}'; }
workload() {
  local name=$1; shift
  : > "$tmp/a"; : > "$tmp/b"
  for _ in $(seq "$rounds"); do
    one "$before" "$@" >> "$tmp/a"
    one "$after" "$@" >> "$tmp/b"
  done
  read -r wa ta ra < <(median < "$tmp/a")
  read -r wb tb rb < <(median < "$tmp/b")
  printf '%-34s before %6.2f s  after %6.2f s  tiles %s / %s  tiles/wall-s %.3g / %.3g\n' \
    "$name" "$wa" "$wb" "$ta" "$tb" "$ra" "$rb"
}
workload "make run" --model deepseek-r1 --chip sn40l-16 --tp 16 --context 131072 \
  --kv snapstream:ratio=4 --batch max --steps 64
workload "llama-3.1-8b 32K prefill + 16" --model llama-3.1-8b --chip sn40l-16 \
  --context 32768 --kv full --batch 1 --steps 16
nff=(--tp 16 --batch 8 --steps 64 --no-prefill --no-fast-forward --chip sn40l-16)
workload "full detail: llama-3.1-70b 8K" "${nff[@]}" --model llama-3.1-70b --context 8192 --kv full
workload "full detail: deepseek-r1 8K" "${nff[@]}" --model deepseek-r1 --context 8192 --kv snapstream:ratio=4
workload "full detail: deepseek-r1 128K" "${nff[@]}" --model deepseek-r1 --context 131072 --kv snapstream:ratio=4
