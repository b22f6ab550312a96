#!/usr/bin/env bash
# Serving benchmark: 1,000 generated requests (Poisson, 2 requests/s, prompts
# 2K-6K tokens, outputs 256-768) on DeepSeek-R1, sn40l-16, TP 16, 16K-token
# slots, SnapStream ratio 4, as many slots as fit. Wall time and peak RSS of
# the whole process: compiling every shape bucket, the SystemC run that times
# them, and the serving loop.
# Usage: bench/serve.sh   (after `make`; figures in bench/README.md)
. "$(dirname "$0")/common.sh"
/usr/bin/time -f '%e %M' -o "$tmp/time" "$BIN" run --serve --model deepseek-r1 \
  --chip sn40l-16 --tp 16 --context 16384 --batch max --kv snapstream:ratio=4 \
  --rate 2 --requests 1000 --prompt-tokens 4096 --output-tokens 512 \
  --report "$tmp/r.json" --trace "$tmp/t.json" > "$tmp/out"
read -r wall rss < "$tmp/time"
cat "$tmp/out"
printf '1000 requests: wall %.2f s, peak RSS %.1f MB, trace %s bytes\n' \
  "$wall" "$(awk -v k="$rss" 'BEGIN {print k / 1024}')" "$(stat -c %s "$tmp/t.json")"
