#!/bin/bash
# Solves a split plan on Slurm (docs/solved.md, "Split solves"): a job array of SHARDS tasks,
# each `arena solve --plan DIR --shard I/SHARDS` on its share of the subproblems, then a merge
# job that waits for all of them (afterok) and writes DIR/result.json.
# Make the plan first: arena solve --rules kalah:seeds=5 --split 3 --plan DIR
# Usage: scripts/slurm/solve.sh DIR SHARDS [extra arena solve flags for the shards]
# Environment: ARENA (default target/release/arena); the database cache folder
# (MANCALA_SOLVER_DB) must be on a file system every node sees, or each node builds its own.
set -euo pipefail
DIR=${1:?usage: solve.sh DIR SHARDS [flags...]}
SHARDS=${2:?usage: solve.sh DIR SHARDS [flags...]}
shift 2
here=$(dirname "$0")
[ -f "$DIR/plan.json" ] || { echo "solve.sh: $DIR/plan.json missing (arena solve --split DEPTH --plan $DIR)" >&2; exit 1; }
array=$(sbatch --parsable --array=0-$((SHARDS - 1)) --export=ALL,PLAN="$DIR",SHARDS="$SHARDS" \
    "$here/solve-shard.sbatch" "$@")
array=${array%%;*}
sbatch --dependency=afterok:"$array" --export=ALL,PLAN="$DIR" "$here/solve-merge.sbatch"
echo "submitted the subproblems as job $array; the merge runs after all of them succeed"
