#!/usr/bin/env bash
# Runs COMMAND with its output folder DIR on a tmpfs of SIZE KiB (16 unless
# given) that is half full and holds DIR/out = "OLD GOOD CONTENT"; prints
# "rc=N <first line of stderr>", then "kept: <DIR/out>" when DIR/out is
# still the old file. Called under `unshare -m`, so the mount is private.
# Usage: full_disk.sh DIR COMMAND [SIZE]
set -u
dir=$1 cmd=$2 size=${3:-16}
mount -t tmpfs -o size=${size}k none "$dir" || exit 3
echo 'OLD GOOD CONTENT' > "$dir/out"
head -c $((size * 512)) /dev/zero > "$dir/filler"
err=$(mktemp)
bash -c "$cmd" > /dev/null 2> "$err"
rc=$?
echo "rc=$rc $(head -n 1 "$err")"
if [ "$(cat "$dir/out" 2>/dev/null)" = "OLD GOOD CONTENT" ]; then
  echo "kept: OLD GOOD CONTENT"
fi
rm -f "$err"
