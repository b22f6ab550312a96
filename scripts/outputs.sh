#!/usr/bin/env bash
# Writes what the README's and the docs' main commands produce (reports, CSV,
# traces, sweep folders, SVG) into OUT, with the parts that differ run to run
# (wall-clock seconds, the snapflow revision, absolute paths) masked, so two
# builds can be compared byte for byte:
#   scripts/outputs.sh build /tmp/before; ...; scripts/outputs.sh build /tmp/after
#   diff -r /tmp/before /tmp/after
# A refactoring that keeps behaviour (issue 33) leaves the diff empty.
set -euo pipefail
BUILD=${1:?usage: outputs.sh BUILD_DIR OUT_DIR}
OUT=${2:?usage: outputs.sh BUILD_DIR OUT_DIR}
B=$(cd "$BUILD" && pwd)/bin
rm -rf "$OUT"; mkdir -p "$OUT"; cd "$OUT"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
run() { local name=$1; shift; "$@" >"$name.out" 2>"$name.err" || echo "exit $?" >>"$name.err"; }

run list "$B/snapflow" list
run info-r1 "$B/snapflow" info --model deepseek-r1 --chip sn40l-16 --context 131072 --batch 8 --kv full --json
run info-8b "$B/snapflow" info --model llama-3.1-8b --chip sn40l --context 4096 --batch 1 --kv full
run compile "$B/snapflow" compile --model deepseek-r1 --chip sn40l-16 --batch 8 --context 131072 \
  --kv snapstream:ratio=4 -o r1.mlir --report compile.json
run simulate "$B/snapflow" simulate r1.mlir --steps 64 --report r.json --trace t.json --csv mem.csv
run default "$B/snapflow" run --model deepseek-r1 --chip sn40l-16 --tp 16 --context 131072 \
  --kv snapstream:ratio=4 --batch max --steps 64
run mtp "$B/snapflow" run --model deepseek-r1 --batch max --kv snapstream:ratio=4 --mla-cache sequence \
  --mtp 1 --mtp-acceptance 0.8
run profile "$B/snapflow" run --model deepseek-r1 --context 131072 --kv snapstream:ratio=4 --batch 64 \
  --mla-cache batch --mtp 2 --mtp-acceptance 0.8 --no-prefill --profile --report profile.json
run whatif "$B/snapflow" run --model llama-3.1-8b --tp 16 --batch 1 --context 4096 --kv full \
  --set system.link_latency_ns=500
run kivi "$B/snapflow" run --model llama-3.1-8b --batch max --context 32768 --kv h2o:ratio=5 --kv-format kivi2
run noloop "$B/snapflow" run --model llama-3.1-8b --tp 16 --batch 1 --context 4096 --kv full --no-loop-overlap
run import "$B/snapflow" import --model llama-3.2-1b --batch 1 --prompt 128 --context 1024 -o m.mlir
run opt "$B/snapflow-opt" m.mlir "--snapflow-pipeline=chip=sn40l kv=snapstream:ratio=4" -o m-opt.mlir
run trace "$B/snapflow" trace t.json --svg occupancy.svg
run sweep-r1 "$B/snapflow" sweep --model deepseek-r1 --chip sn40l-16 --context 8k,32k,128k \
  --batch max --kv full,snapstream:ratio=4 -j 2 -o r1-sweep
run sweep-whatif "$B/snapflow" sweep --model deepseek-r1 --chip sn40l-16 --context 128k --batch 8,64 \
  --mla-cache sequence --mtp 0,1 --set system.link_latency_ns=500,2000 -j 2 -o what-if
run sweep-kv "$B/snapflow" sweep --model llama-3.1-8b --context 32k --batch max \
  --kv full,snapkv:ratio=4,h2o:ratio=4 --kv-format bf16,kivi2 --cla 1,2 --prefill -j 2 -o kv-methods
run serve "$B/snapflow" run --serve --model deepseek-r1 --chip sn40l-16 --context 16384 --batch max \
  --rate 0.5 --requests 60 --prompt-tokens 4096 --output-tokens 512 --report serve.json \
  --trace serve-trace.json --csv serve.csv
run serve-models "$B/snapflow" run --serve --model llama-3.1-70b,llama-3.1-8b,llama-3.2-1b \
  --chip sn40l-16 --context 131072 --batch 32 --model-cache prewarm --forecast-period 600 \
  --rate 0.05 --load-period 600 --duration 1200 --prompt-tokens 4096 --output-tokens 256 \
  --report serve-models.json --trace serve-models-trace.json
run serve-trace-svg "$B/snapflow" trace serve-models-trace.json --svg serve-models.svg

# Mask what differs between two runs of one build: wall-clock times (JSON
# keys and CSV columns named *wall*, compile_time_s; seconds in text), the
# snapflow revision, and this folder's and the build's paths; a parallel
# sweep's progress lines are sorted.
python3 - "$OUT" "$B" <<'PY'
import csv, io, json, os, re, sys
out, bindir = sys.argv[1], sys.argv[2]
WALL = re.compile(r'(^|\.)(wall_time_s|tiles_per_wall_second|compile_time_s)($|\.)')
def text(s):
    s = s.replace(out, 'OUT').replace(bindir, 'BIN')
    s = re.sub(r'\d+\.\d+ \(([0-9a-f]+|unknown)(-dirty)?\)', 'VERSION', s)
    s = re.sub(r'\(\d+/\d+\)', '(N/M)', s)  # -j 2 completion order
    return re.sub(r'\b\d+(\.\d+)? s\b', 'T s', s)
def mask(v, key=''):
    if isinstance(v, dict):
        return {k: ('W' if WALL.search(k) else mask(x, k)) for k, x in v.items()}
    if isinstance(v, list):
        return [mask(x) for x in v]
    return text(v) if isinstance(v, str) else v
for root, _, files in os.walk(out):
    for f in files:
        path = os.path.join(root, f)
        try:
            s = open(path).read()
        except UnicodeDecodeError:
            continue
        if f.endswith('.json'):
            try:
                s = json.dumps(mask(json.loads(s)), indent=1, sort_keys=True)
            except ValueError:
                s = text(s)
        elif f.endswith('.csv') and s:
            rows = list(csv.reader(io.StringIO(s)))
            keep = [i for i, h in enumerate(rows[0]) if not WALL.search(h)]
            buf = io.StringIO()
            csv.writer(buf, lineterminator='\n').writerows(
                [[text(r[i]) if i < len(r) else '' for i in keep] for r in rows])
            s = buf.getvalue()
        else:
            s = text(s)
            if f.startswith('sweep') and f.endswith('.out'):  # -j 2: any order
                s = ''.join(sorted(s.splitlines(True)))
        open(path, 'w').write(s)
PY
echo "outputs in $OUT"
