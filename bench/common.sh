# Sourced by the bench scripts: run from the project root with the build's
# snapflow (or BIN=/other/build/bin/snapflow to compare two builds), with
# /usr/bin/time for wall time and peak RSS, and a temporary folder $tmp
# removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/bin/snapflow}
[ -x "$BIN" ] || { echo "build first: make" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
