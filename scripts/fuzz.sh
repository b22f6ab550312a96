#!/usr/bin/env bash
# Runs every libFuzzer target of a sanitized build (make fuzz) for SECONDS
# each on its corpus: the committed fuzz/corpus/<target>/ (every input that
# ever crashed it), the shipped files of its kind as seeds, and a working
# corpus in BUILD/fuzz-work/<target>/ that keeps what the run discovers.
# Exits 1 on the first target that crashes, naming the input it saved;
# copy that input into fuzz/corpus/<target>/ with the fix (docs/Testing.md).
#
#   scripts/fuzz.sh [BUILD [SECONDS [TARGET...]]]     default build-sanitize 60
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build-sanitize}
seconds=${2:-60}
shift $(( $# < 2 ? $# : 2 ))
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(FuzzModelConfig FuzzChip FuzzKVPolicy
  FuzzDataflowIR FuzzRequests FuzzMemoryTrace FuzzDeployment)
# MLIR and SystemC are not instrumented (docs/Testing.md).
export ASAN_OPTIONS=${ASAN_OPTIONS:-allow_user_poisoning=0:detect_stack_use_after_return=0:detect_leaks=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

seed=$(mktemp -d)
trap 'rm -rf "$seed"' EXIT
# Seeds: the shipped inputs of each parser, with the selector byte the
# target reads first where it has one.
seeds() {
  local t=$1 d=$seed/$1 i=0
  mkdir -p "$d"
  case $t in
  FuzzModelConfig) cp "$root"/models/configs/*.json "$d"/ ;;
  FuzzChip) cp "$root"/arch/chips/*.yaml "$d"/ ;;
  FuzzKVPolicy)
    for p in full snapstream:ratio=4 snapstream:budget=8192,recent=1024 \
      streaming:sinks=4,window=4096 snapkv:ratio=4 h2o:ratio=8 \
      scissorhands:budget=2048 arkvale:budget=4096,page=32; do
      printf '\x00\x11\x00%s' "$p" > "$d/p$((i++))"
    done
    for f in bf16 fp8 kivi2 kivi4 quarot4 zipcache kivi:bits=2,group=64; do
      printf '\x01\x11\x00%s' "$f" > "$d/f$((i++))"
    done ;;
  FuzzDataflowIR)
    grep -rl --include='*.mlir' 'df.program' "$root/tests" | while read -r f; do
      cp "$f" "$d/$((i++)).mlir"
    done ;;
  FuzzRequests)
    for f in "$root"/tests/Tools/Inputs/*.csv; do
      printf '\x00' | cat - "$f" > "$d/$(basename "$f")"
    done ;;
  FuzzMemoryTrace) cp "$root"/tests/Tools/Inputs/*.trace.json "$d"/ ;;
  FuzzDeployment)
    # The example of docs/Serving.md, and a short one with every key.
    awk '/^### Deployment files/ {on=1} on && /^```yaml/ {y=1; next}
         y && /^```/ {exit} y' "$root/docs/Serving.md" > "$d/doc.yaml"
    printf 'models:\n  - model: llama-3.2-1b\n    batch: max\n    context: 2k\n    kv: snapstream:ratio=4\n    kv_format: kivi2\n    weights_dtype: fp8\n' > "$d/keys.yaml" ;;
  esac
}

status=0
for t in "${targets[@]}"; do
  bin=$build/bin/$t
  [ -x "$bin" ] || { echo "fuzz.sh: no $bin; run make fuzz" >&2; exit 1; }
  seeds "$t"
  work=$build/fuzz-work/$t
  mkdir -p "$work" "$build/fuzz-crashes"
  echo "== $t: ${seconds} s"
  if ! "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
      -max_len=8192 -print_final_stats=1 \
      -artifact_prefix="$build/fuzz-crashes/$t-" \
      "$work" "$root/fuzz/corpus/$t" "$seed/$t" > "$build/fuzz-work/$t.log" 2>&1; then
    echo "fuzz.sh: $t failed; its log: $build/fuzz-work/$t.log" >&2
    grep -E 'ERROR|SUMMARY|Test unit written|runtime error' "$build/fuzz-work/$t.log" | head -5 >&2
    status=1
  else
    grep -E '^stat::number_of_executed_units|^Done' "$build/fuzz-work/$t.log" | head -2
  fi
done
exit $status
