#!/usr/bin/env bash
# Submits `opmfu analyze` of DATA as a Slurm job array of N shards, plus `opmfu merge` as a job
# that starts when the whole array has ended (docs/sharding.md).
#
# Usage: slurm-analyze.sh DATA OUT N
#   DATA  the profiling directory (parent of the *_ascend_pt directories), on a shared file system
#   OUT   where the partials (OUT/shards/<I>), the logs (OUT/logs) and the merged tables
#         (OUT/cluster_analysis_output) go, on a shared file system
#   N     the number of shards (array tasks 0 to N-1)
# Environment:
#   OPMFU        the opmfu binary (default: opmfu on PATH)
#   JOBS         ranks one shard analyses at once, and its --cpus-per-task (default 4)
#   SBATCH_ARGS  more sbatch flags for both jobs, e.g. "--partition=cpu --time=02:00:00"
# Prints the array's job id and the merge's job id.
set -euo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: $0 DATA OUT N" >&2
  exit 2
fi
data=$1
out=$2
shards=$3
if [[ ! $shards =~ ^[1-9][0-9]*$ ]]; then
  echo "$0: N must be a whole number of at least 1, got '$shards'" >&2
  exit 2
fi
if [[ ! -d $data ]]; then
  echo "$0: $data: not a directory" >&2
  exit 2
fi
opmfu=${OPMFU:-opmfu}
jobs=${JOBS:-4}
read -r -a extra <<<"${SBATCH_ARGS:-}"
mkdir -p "$out/logs" "$out/shards"

# Array tasks are numbered 0..N-1, which is what --shard I/N counts. ${SLURM_ARRAY_TASK_ID} is
# left for the task's shell to expand; the paths are quoted for it here.
shard_command="exec $(printf '%q' "$opmfu") analyze -d $(printf '%q' "$data") \
--shard \${SLURM_ARRAY_TASK_ID}/$shards --jobs $jobs -o $(printf '%q' "$out")/shards/\${SLURM_ARRAY_TASK_ID}"
array_id=$(sbatch --parsable "${extra[@]}" --job-name=opmfu-shards --array="0-$((shards - 1))" \
  --cpus-per-task="$jobs" --output="$out/logs/shard-%a.log" --wrap="$shard_command")
array_id=${array_id%%;*}

# afterany, not afterok: when a shard died without its partial, the merge says which shard and
# which ranks are missing instead of waiting forever. (A shard whose ranks failed still exits 0:
# the merge reports those ranks and exits 1.)
merge_command="exec $(printf '%q' "$opmfu") merge $(printf '%q' "$out")/shards/* -o $(printf '%q' "$out")"
merge_id=$(sbatch --parsable "${extra[@]}" --job-name=opmfu-merge --dependency="afterany:$array_id" \
  --output="$out/logs/merge.log" --wrap="$merge_command")
merge_id=${merge_id%%;*}

echo "shards: job array $array_id ($shards tasks, logs $out/logs/shard-<I>.log)"
echo "merge:  job $merge_id after the array (log $out/logs/merge.log; tables in $out/cluster_analysis_output)"
