#!/bin/bash
# Submits a sharded tournament to Slurm: a job array of SHARDS tasks, then a merge job that
# waits for all of them (afterok). Usage: scripts/slurm/submit.sh SHARDS [RUN] [extra arena run flags]
set -euo pipefail
SHARDS=${1:?usage: submit.sh SHARDS [RUN] [flags...]}
RUN=${2:-levels}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(dirname "$0")
array=$(sbatch --parsable --array=0-$((SHARDS - 1)) --export=ALL,SHARDS="$SHARDS",RUN="$RUN" "$here/shard.sbatch" "$@")
array=${array%%;*}
sbatch --dependency=afterok:"$array" --export=ALL,RUN="$RUN" "$here/merge.sbatch"
echo "submitted shards as job $array; the merge runs after all of them succeed"
