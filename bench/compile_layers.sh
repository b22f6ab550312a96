#!/usr/bin/env bash
# Compile time against the number of layers (issue 32, R12): Llama-3.2-1B
# with num_hidden_layers N, up to the config reader's 4096. `info` compiles
# the decode graph with layers fused into loops; `compile --no-fuse-layers`
# lowers every layer to its own sections (sn40l-16, TP 16, context 4096,
# batch 1, full KV). Wall time and peak RSS by /usr/bin/time; linear work
# per layer shows as a time that doubles with N.
# Usage: bench/compile_layers.sh [N...]   (after `make`; figures in bench/README.md)
source "$(dirname "$0")/common.sh"
layers=("$@")
[ ${#layers[@]} -gt 0 ] || layers=(256 512 1024 2048 4096)
printf '%-7s %-22s %-22s\n' layers "info (fused)" "compile --no-fuse-layers"
for n in "${layers[@]}"; do
  sed "s/\"num_hidden_layers\": [0-9]*/\"num_hidden_layers\": $n/" \
    models/configs/llama-3.2-1b.json > "$tmp/l$n.json"
  /usr/bin/time -f '%e s %M' -o "$tmp/fused" "$BIN" info --model "$tmp/l$n.json" \
    --chip sn40l-16 --context 4096 --batch 1 --kv full > /dev/null
  /usr/bin/time -f '%e s %M' -o "$tmp/unfused" "$BIN" compile --model "$tmp/l$n.json" \
    --chip sn40l-16 --tp 16 --context 4096 --batch 1 --kv full --no-fuse-layers \
    -o "$tmp/out.mlir" > /dev/null
  show() { awk '{printf "%s s, %.0f MB", $1, $3 / 1024}' "$1"; }
  printf '%-7s %-22s %-22s\n' "$n" "$(show "$tmp/fused")" "$(show "$tmp/unfused")"
done
