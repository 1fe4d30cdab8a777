#!/usr/bin/env bash
# Live test of `dab export slurm` on a real, one-node Slurm cluster started here. Read it to
# learn how to try a cluster run on one machine. It needs root (it installs Debian's slurmctld,
# slurmd, slurm-client and munge when missing) and a built dab (cargo build --release).
#
# Everything else lives in a fresh temporary folder: a munge key and munged on its own
# socket, a slurm.conf written for this host (its name, CPUs and memory), slurmctld and slurmd
# in the foreground as background jobs, on free ports. Nothing in /etc is changed, and the
# daemons are stopped by process id when the script ends, however it ends. Daemons left by an
# earlier run that was killed are stopped by the process ids it recorded.
#
# Checks: the exported plan of a small board (2x3 split, so that job arrays appear) runs
# through Slurm to the same value and byte-identical store files as a local `dab run`; running
# the script again submits nothing, and after a file is deleted only that job (and the value);
# the jobcomp log becomes a trace that `dab compare` reads, with the fitted overhead; a
# two-level plan (`dab plan --nodes`) runs as one submission a task on all the node's CPUs to
# the same value and files; a job that fails cancels every job after it instead of leaving it
# pending.
#
# Usage: bash tests/slurm-live.sh   (DAB=path/to/dab to test another binary)
set -euo pipefail
cd "$(dirname "$0")/.."
DAB=${DAB:-$PWD/target/release/dab}
PREFIX=/tmp/dab-slurm-live.
NAME=slurm-live
# shellcheck source=tests/slurm-common.sh
source tests/slurm-common.sh

[[ $(id -u) == 0 ]] || fail "run as root: the test installs and starts munge and Slurm"
[[ -x $DAB ]] || fail "no dab binary at $DAB: run cargo build --release first"

# --- Packages ---------------------------------------------------------------------------
if ! [[ -x /usr/sbin/slurmctld && -x /usr/sbin/slurmd && -x /usr/sbin/munged ]] || ! command -v sbatch >/dev/null; then
  say "installing slurmctld slurmd slurm-client munge"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    slurmctld slurmd slurm-client munge >/dev/null
fi

# --- Leftovers of an earlier run that died before its trap ran ----------------------------
new_run "$PREFIX" kill_recorded

on_exit kill_recorded

# --- munge: its own key and socket --------------------------------------------------------
start_munge

# --- slurm.conf for this host ---------------------------------------------------------------
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for _ in $(seq 50); do
  port=$((20000 + RANDOM % 20000))
  port_free "$port" && port_free $((port + 1)) && break
done
host=$(hostname -s)
cpus=$(nproc)
mem=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 8 / 10))
mkdir "$T/spool"
cat >"$T/slurm.conf" <<EOF
ClusterName=dablive
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
$(common_conf)
SlurmdSpoolDir=$T/spool
SlurmdPidFile=$T/slurmd.pid
SlurmdLogFile=$T/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=dab Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$T/slurm.conf

/usr/sbin/slurmctld -D -f "$SLURM_CONF" >"$T/slurmctld.out" 2>&1 &
/usr/sbin/slurmd -D -f "$SLURM_CONF" >"$T/slurmd.out" 2>&1 &
for _ in $(seq 60); do
  [[ $(sinfo --noheader --format=%t 2>/dev/null) == idle ]] && break
  sleep 1
done
[[ $(sinfo --noheader --format=%t 2>/dev/null) == idle ]] || fail "the node did not become idle in 60 s"
ok "Slurm is up: node $host, $cpus CPUs, $mem MB, ports $port-$((port + 1))"

# wait_jobs: until this user has nothing queued or running (the cluster is ours alone).
wait_jobs() {
  local i
  for i in $(seq 600); do
    [[ -z $(squeue --noheader --me --format=%i) ]] && return 0
    sleep 1
  done
  fail "jobs still queued after 600 s: $(squeue --noheader --me --format='%j %T %r' | head -5)"
}

# same_store A B: the same store files, byte for byte.
same_store() {
  local a=$1 b=$2 f n=0
  for f in "$a"/*.dab; do
    cmp -s "$f" "$b/$(basename "$f")" || fail "$(basename "$f") differs between $a and $b"
    n=$((n + 1))
  done
  (($(ls "$b"/*.dab | wc -l) == n)) || fail "$b has other files than $a"
  echo "$n"
}

# --- The plan, run locally and through Slurm -----------------------------------------------
"$DAB" plan 2x3 --groups 2 --split 500 --threads "$cpus" -o "$T/plan.json" --out "$T/report" >/dev/null 2>&1
local_json=$("$DAB" run --plan "$T/plan.json" --store "$T/local" --out "$T/local-report" --json --quiet 2>/dev/null)
json_value() { python3 -c 'import json, sys; print(json.load(sys.stdin)["value"])'; }
local_value=$(json_value <<<"$local_json")
[[ -n $local_value ]] || fail "no value from the local run: $local_json"

"$DAB" export slurm --plan "$T/plan.json" --store "$T/store" --out "$T/out" >/dev/null
arrays=$(grep -cE '^submit \S+ [0-9]+ [0-9]+ \S+ [0-9]+$' "$T/out/submit-slurm.sh" || true)
((arrays > 0)) || fail "the exported plan has no job array"
start=$(date +%s)
bash "$T/out/submit-slurm.sh"
wait_jobs
say "the cluster ran $(wc -l <"$T/out/job-ids") jobs ($arrays arrays) in $(($(date +%s) - start)) s"
[[ -f $T/out/value.json ]] || fail "no value.json: the value job did not run"
value=$(json_value <"$T/out/value.json")
[[ $value == "$local_value" ]] || fail "value $value through Slurm, $local_value locally"
ok "value $value, as the local run"
files=$(same_store "$T/local/2x3/g2" "$T/store/2x3/g2")
ok "$files store files byte-identical to the local run's"

# --- Slurm's record as a trace, and the comparison with the prediction ----------------------
"$DAB" cluster-trace --plan "$T/plan.json" --jobcomp "$T/jobcomp.log" --slots "$cpus" -o "$T/out/trace.csv" |
  tee "$T/trace.txt"
overhead=$(grep -o 'dab compare --overhead [0-9.]*' "$T/trace.txt" | awk '{print $4}')
[[ -n $overhead ]] || fail "cluster-trace fitted no overhead"
"$DAB" compare --plan "$T/plan.json" --trace "$T/out/trace.csv" --overhead "$overhead" | tee "$T/compare.txt"
grep -q "predicted" "$T/compare.txt" || fail "dab compare printed no comparison"
ok "dab compare read the cluster's trace (overhead $overhead s a job)"

# --- Resuming: nothing to do, then only what is missing -----------------------------------
again=$(bash "$T/out/submit-slurm.sh")
[[ $again == "submitted 0 job(s);"* ]] || fail "a second run on a finished store: $again"
victim=$(ls "$T/store/2x3/g2" | grep '\.dab$' | sed -n '5s/\.dab$//p')
rm "$T/store/2x3/g2/$victim.dab" "$T/out/value.json"
again=$(bash "$T/out/submit-slurm.sh")
[[ $again == "submitted 2 job(s);"* ]] || fail "after deleting $victim.dab and value.json: $again"
wait_jobs
same_store "$T/local/2x3/g2" "$T/store/2x3/g2" >/dev/null
[[ -f $T/out/value.json ]] || fail "the value was not recorded again"
ok "running the script again submits nothing; after deleting $victim only it and the value"

# --- A two-level plan: one submission a task, on all the node's CPUs -------------------------
"$DAB" plan 2x4 --groups 2 --nodes 2 --threads-per-node "$cpus" --overhead 0 -o "$T/tasks.json" --out "$T/tasks-report" >/dev/null 2>&1
tasks=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["tasks"]))' "$T/tasks.json")
((tasks > 1)) || fail "the two-level plan has $tasks task(s)"
# The local run keeps the plan's book: the cluster run removes every other file once its readers are done.
book=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cluster"]["keep_lines"])' "$T/tasks.json")
local_json=$("$DAB" run --plan "$T/tasks.json" --store "$T/tasks-local" --keep-lines "$book" --out "$T/tasks-local-report" --json --quiet 2>/dev/null)
"$DAB" export slurm --plan "$T/tasks.json" --store "$T/tasks-store" --out "$T/tasks-out" >/dev/null
grep -q -- '--task \$name --threads \$THREADS' "$T/tasks-out/submit-slurm.sh" || fail "the export does not run tasks"
start=$(date +%s)
bash "$T/tasks-out/submit-slurm.sh"
wait_jobs
say "the cluster ran $(wc -l <"$T/tasks-out/job-ids") submissions ($tasks tasks and the value) in $(($(date +%s) - start)) s"
value=$(json_value <"$T/tasks-out/value.json")
[[ $value == "$(json_value <<<"$local_json")" ]] || fail "two-level plan: value $value through Slurm, locally $local_json"
files=$(same_store "$T/tasks-local/2x4/g2" "$T/tasks-store/2x4/g2")
again=$(bash "$T/tasks-out/submit-slurm.sh")
[[ $again == "submitted 0 job(s);"* ]] || fail "a second run of the two-level script: $again"
ok "a two-level plan ran as $tasks tasks of $cpus CPUs: value $value and $files files as the local run"

# --- A failing job cancels its dependents ---------------------------------------------------
first=$(awk '/^submit / {print $2; exit}' "$T/out/submit-slurm.sh")
# shq WORD: WORD in single quotes for sh, as the exported script's (bash's printf %q writes
# $'...', which sh does not read).
shq() {
  local LC_ALL=C s=$1 q="'\\''"
  s=${s//\'/$q}
  printf "'%s'" "$s"
}
cat >"$T/failing-dab" <<EOF
#!/bin/sh
# dab, except that job $first fails.
case " \$* " in *" --job $first "*) echo "failing $first on purpose" >&2; exit 3 ;; esac
exec $(shq "$DAB") "\$@"
EOF
chmod +x "$T/failing-dab"
"$DAB" export slurm --plan "$T/plan.json" --store "$T/store2" --out "$T/out2" >/dev/null
DAB=$T/failing-dab bash "$T/out2/submit-slurm.sh" >/dev/null
wait_jobs
records=$(grep -F "WorkDir=$T/out2 " "$T/jobcomp.log" || true)
failed=$(grep -c 'JobState=FAILED' <<<"$records" || true)
completed=$(grep -c 'JobState=COMPLETED' <<<"$records" || true)
cancelled=$(grep -c 'JobState=CANCELLED' <<<"$records" || true)
((failed == 1 && completed == 0 && cancelled > 0)) ||
  fail "after $first failed: $failed failed, $completed completed, $cancelled cancelled"
ok "job $first failed and its $cancelled dependent submission(s) were cancelled, none left pending"

say "$passed passed, 0 failed"
