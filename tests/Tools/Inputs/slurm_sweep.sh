#!/usr/bin/env bash
# tests/Tools/slurm.test: the Slurm job array of docs/Sweeps.md, as printed
# there, on a single-node Slurm started for the test, then merged.
#   slurm_sweep.sh SNAPFLOW DOCS/Sweeps.md DIR
# Leaves DIR/merged (the array's shards merged) and DIR/local (the same grid
# run without Slurm).
set -euo pipefail
snapflow=$1 page=$2 dir=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir/cluster"
# The first ```sh block after the "### Slurm job array" heading.
python3 - "$page" > "$dir/sweep.sbatch" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
section = text[text.index("### Slurm job array"):]
print(re.search(r"```sh\n(.*?)```", section, re.S).group(1), end="")
PY
conf=$("$here/slurm_cluster.sh" start "$dir/cluster")
trap '"$here/slurm_cluster.sh" stop "$dir/cluster"' EXIT
export SLURM_CONF=$conf
# The doc's script with a grid small enough for a test.
export SNAPFLOW=$snapflow SWEEP_DIR=$dir/shards
export SWEEP_GRID="--model llama-3.2-1b --chip tiny --context 1k,2k --batch 1,4 --kv full,snapstream:ratio=4 --steps 2"
(cd "$dir" && sbatch --wait --quiet sweep.sbatch) || {
  echo "slurm_sweep.sh: the array job failed; its logs:" >&2
  tail -n 5 "$dir"/sweep-*.log >&2
  exit 1
}
ls -d "$dir"/shards/shard-* | wc -l | sed 's/^/shards: /'
"$snapflow" sweep merge "$dir"/shards/shard-* -o "$dir/merged" > /dev/null
# shellcheck disable=SC2086
"$snapflow" sweep $SWEEP_GRID -o "$dir/local" > /dev/null
