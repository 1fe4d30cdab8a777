#!/usr/bin/env bash
# Submits the plan /shared/plan.json (2x3, 98 jobs) to Slurm as 95 submissions and a last
# one that records the value in /shared/run/value.json. Written by `dab export slurm`.
#
# Every node must see the dab binary, the plan and the store folder at these paths (a shared
# filesystem). Set DAB to run another dab binary. Each job runs `dab job`, which reads the
# files of the jobs it needs and writes its own file in the store.
#
# Run it again after a failure or on a half-finished store: a job whose file is in the store
# is skipped, and so is one still queued (or running) from an earlier run of this script, so
# only what is missing is submitted. Submitted ids are in /shared/run/job-ids.
#
# Pieces of a split partition that all need the same jobs go as one job array (3 here;
# task i runs piece <key>_i); other pieces go one job each. --nice is the rank of the job's
# priority in the plan (0: the longest predicted path to the end). Memory: the job's inputs
# and its output, plus 64 MiB.
set -euo pipefail

DAB=${DAB:-'/opt/dab/bin/dab'}
PLAN='/shared/plan.json'
STORE='/shared/store'
FILES='/shared/store/2x3/g2'
OUT='/shared/run'
# $OUT/logs as a Slurm file name pattern, for --output: a % in it doubled.
LOGS='/shared/run/logs'
mkdir -p "$OUT/logs"
: >"$OUT/job-ids"

# Slurm id of every job not in the store that is queued or was submitted now (array tasks as
# <id>_<task>), by plan job name. Whole lines: read would strip the spaces a folder may end with.
declare -A ID=()
while IFS= read -r line; do
  name=${line%% *} line=${line#* }
  base=${line%% *} line=${line#* }
  task=${line%% *} dir=${line#* }
  [[ $dir == "$OUT" && $name == dab-* ]] || continue
  if [[ $task == N/A ]]; then ID[${name#dab-}]=$base; else ID[${name#dab-}_$task]=${base}_$task; fi
done < <(squeue --noheader --me --array --format='%j %F %K %Z')
queued=${#ID[@]}
submitted=0
skipped=0

# shq WORD: WORD as one POSIX sh word in single quotes ('\'' for a '), for the command of
# sbatch --wrap, which runs under /bin/sh: bash's printf %q writes $'...', which sh does not read.
shq() {
  local LC_ALL=C s=$1 q="'\\''"
  s=${s//\'/$q}
  printf "'%s'" "$s"
}

# submit NAME MEM NICE NEEDS [PIECES]: submits plan job NAME (or, with PIECES, the array of
# pieces NAME_0..NAME_<PIECES-1>) unless it is in the store or queued, after the jobs NEEDS
# (comma-separated) that are not in the store.
submit() {
  local name=$1 mem=$2 nice=$3 needs=$4 pieces=${5:-} jobs=() todo=() deps=() i n id cmd
  if [[ -n $pieces ]]; then
    for ((i = 0; i < pieces; i++)); do jobs+=("${name}_$i"); done
  else
    jobs=("$name")
  fi
  for i in "${!jobs[@]}"; do
    n=${jobs[$i]}
    if [[ $n == value ]]; then [[ -e $OUT/value.json ]] && continue; else [[ -e $FILES/$n.dab ]] && continue; fi
    [[ -n ${ID[$n]:-} ]] && continue
    todo+=("$i")
  done
  skipped=$((skipped + ${#jobs[@]} - ${#todo[@]}))
  ((${#todo[@]})) || return 0
  IFS=, read -ra needs <<<"$needs"
  for n in "${needs[@]}"; do
    if [[ -n ${ID[$n]:-} ]]; then deps+=("${ID[$n]}"); fi
  done
  local args=(--parsable --job-name="dab-$name" --mem="${mem}M" --nice="$nice" --ntasks=1 --cpus-per-task=1
    --kill-on-invalid-dep=yes --chdir="$OUT")
  if ((${#deps[@]})); then args+=(--dependency="afterok:$(IFS=:; echo "${deps[*]}")"); fi
  if [[ $name == value ]]; then
    cmd="--value $(shq "$OUT/value.json")"
    args+=(--output="$LOGS/%x.out")
  elif [[ -n $pieces ]]; then
    cmd="--job ${name}_\$SLURM_ARRAY_TASK_ID"
    args+=(--array="$(IFS=,; echo "${todo[*]}")" --output="$LOGS/%x_%a.out")
  else
    cmd="--job $name"
    args+=(--output="$LOGS/%x.out")
  fi
  id=$(sbatch "${args[@]}" --wrap="exec $(shq "$DAB") job --plan $(shq "$PLAN") --store $(shq "$STORE") $cmd")
  id=${id%%;*}
  for i in "${todo[@]}"; do
    if [[ -n $pieces ]]; then ID[${jobs[$i]}]=${id}_$i; else ID[${jobs[$i]}]=$id; fi
    echo "${jobs[$i]} ${ID[${jobs[$i]}]}" >>"$OUT/job-ids"
    submitted=$((submitted + 1))
  done
}

# name, MiB, nice, needs[, pieces]
submit 9-8 65 0 -
submit 8-8 65 1 9-8
submit 9-7 65 3 9-8
submit 7-8 65 2 8-8
submit 8-7 65 4 8-8,9-7
submit 9-6 65 7 9-7
submit 6-8 65 5 7-8
submit 7-7 65 6 7-8,8-7
submit 8-6 65 8 8-7,9-6
submit 9-5 65 10 9-6
submit 5-8 65 13 6-8
submit 6-7 65 11 6-8,7-7
submit 7-6 65 9 7-7,8-6
submit 8-5 65 12 8-6,9-5
submit 9-4 65 16 9-5
submit 4-8 65 22 5-8
submit 5-7 65 18 5-8,6-7
submit 6-6 65 15 6-7,7-6
submit 7-5 65 14 7-6,8-5
submit 8-4 65 17 8-5,9-4
submit 9-3 65 23 9-4
submit 3-8 65 33 4-8
submit 4-7 65 25 4-8,5-7
submit 5-6 65 21 5-7,6-6
submit 6-5 65 19 6-6,7-5
submit 7-4 65 20 7-5,8-4
submit 8-3 65 24 8-4,9-3
submit 9-2 65 37 9-3
submit 2-8 65 48 3-8
submit 3-7 65 36 3-8,4-7
submit 4-6 65 29 4-7,5-6
submit 5-5 65 28 5-6,6-5 2
submit 6-4 65 27 6-5,7-4 2
submit 7-3 65 26 7-4,8-3
submit 8-2 65 38 8-3,9-2
submit 9-1 65 58 9-2
submit 1-8 65 69 2-8
submit 2-7 65 51 2-8,3-7
submit 3-6 65 40 3-7,4-6
submit 4-5 65 35 4-6,5-5_0,5-5_1 2
submit 5-4_0 65 34 5-5_0,6-4_0,6-4_1
submit 5-4_1 65 32 5-5_1,6-4_1
submit 6-3 65 31 6-4_0,6-4_1,7-3
submit 7-2 65 41 7-3,8-2
submit 8-1 65 59 8-2,9-1
submit 9-0 65 66 9-1
submit 0-8 65 80 1-8
submit 1-7 65 70 1-8,2-7
submit 2-6 65 54 2-7,3-6
submit 3-5 65 46 3-6,4-5_0,4-5_1
submit 4-4_0 65 47 4-5_0,5-4_0,5-4_1
submit 4-4_1 65 42 4-5_1,5-4_0,5-4_1
submit 5-3_0 65 45 5-4_0,6-3
submit 5-3_1 65 43 5-4_1,6-3
submit 6-2 65 44 6-3,7-2
submit 7-1 65 60 7-2,8-1
submit 8-0 65 67 8-1,9-0
submit 0-7 65 81 0-8,1-7
submit 1-6 65 73 1-7,2-6
submit 2-5 65 55 2-6,3-5
submit 3-4_0 65 53 3-5,4-4_0,4-4_1
submit 3-4_1 65 53 3-5,4-4_1
submit 4-3_0 65 52 4-4_0,5-3_0,5-3_1
submit 4-3_1 65 50 4-4_1,5-3_0,5-3_1
submit 5-2 65 49 5-3_0,5-3_1,6-2
submit 6-1 65 62 6-2,7-1
submit 7-0 65 68 7-1,8-0
submit 0-6 65 82 0-7,1-6
submit 1-5 65 74 1-6,2-5
submit 2-4 65 61 2-5,3-4_0,3-4_1
submit 3-3 65 56 3-4_0,3-4_1,4-3_0,4-3_1
submit 4-2 65 57 4-3_0,4-3_1,5-2
submit 5-1 65 63 5-2,6-1
submit 6-0 65 71 6-1,7-0
submit 0-5 65 84 0-6,1-5
submit 1-4 65 76 1-5,2-4
submit 2-3 65 65 2-4,3-3
submit 3-2 65 64 3-3,4-2
submit 4-1 65 72 4-2,5-1
submit 5-0 65 75 5-1,6-0
submit 0-4 65 85 0-5,1-4
submit 1-3 65 83 1-4,2-3
submit 2-2 65 77 2-3,3-2
submit 3-1 65 78 3-2,4-1
submit 4-0 65 79 4-1,5-0
submit 0-3 65 89 0-4,1-3
submit 1-2 65 88 1-3,2-2
submit 2-1 65 86 2-2,3-1
submit 3-0 65 87 3-1,4-0
submit 0-2 65 92 0-3,1-2
submit 1-1 65 91 1-2,2-1
submit 2-0 65 90 2-1,3-0
submit 0-1 65 94 0-2,1-1
submit 1-0 65 93 1-1,2-0
submit 0-0 65 95 0-1,1-0
submit value 65 0 0-1,1-0,0-0

echo "submitted $submitted job(s); $skipped in the store or queued ($queued queued before); ids in $OUT/job-ids"
