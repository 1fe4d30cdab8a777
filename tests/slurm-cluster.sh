#!/usr/bin/env bash
# Live test of a two-level plan on a multi-node Slurm cluster built on this machine: three
# slurmd nodes, each in its own network and UTS namespace (its own hostname and address on a
# bridge this script makes), one slurmctld on the bridge, munge, and a store folder every
# node sees (one filesystem). Needs root, the Debian packages slurmctld, slurmd, slurm-client
# and munge (tests/slurm-live.sh installs them), iproute2 and a built dab.
#
# Checks: a 3x4 plan packed for three nodes (`dab plan --nodes 3`) and exported runs through
# Slurm with its tasks on all three nodes (from Slurm's record), to the value of a local
# `dab run` keeping the same book, every store file byte-identical to the local run's (the
# files outside the book gone, as their readers ended), and `dab verify` clean. Then
# the 3x4 run is compared with its prediction, the dispatch overhead fitted on a 2x6 run of the
# same cluster (within 25 %). Then a node is lost: in a second run, every process of one node
# (its slurmd and the task it runs) is killed; that task fails, every task after it is
# cancelled and none runs, the store holds no damaged file, and once the node is back, running
# the submit script again submits only what is missing and ends with the same value and files.
#
# Addresses exist only inside the namespaces and on the bridge made here; everything is
# removed when the script ends, however it ends (daemons by process id, namespaces and the
# bridge by name), and leftovers of a run killed before its trap ran are removed first.
#
# Usage: bash tests/slurm-cluster.sh   (DAB=path/to/dab to test another binary; DAB_SLURM_RECORD=DIR
# to keep the plans and Slurm's records of the 3x4 and 2x6 runs there)
set -euo pipefail
cd "$(dirname "$0")/.."
DAB=${DAB:-$PWD/target/release/dab}
PREFIX=/tmp/dab-slurm-cluster.
NODES=3
NAME=slurm-cluster
# shellcheck source=tests/slurm-common.sh
source tests/slurm-common.sh

[[ $(id -u) == 0 ]] || fail "run as root: the test makes network namespaces and starts Slurm"
[[ -x $DAB ]] || fail "no dab binary at $DAB: run cargo build --release first"
for tool in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/munged; do
  [[ -x $tool ]] || fail "no $tool: run tests/slurm-live.sh first (it installs Slurm and munge)"
done
command -v ip >/dev/null || fail "no ip (iproute2)"

# --- Leftovers of an earlier run that died before its trap ran ----------------------------
# Each run writes its namespaces, bridge and daemons' pids under its folder.
remove_cluster() {
  local dir=$1 ns
  kill_recorded "$dir"
  if [[ -f $dir/netns ]]; then
    while read -r ns; do ip netns del "$ns" 2>/dev/null || true; done <"$dir/netns"
  fi
  if [[ -f $dir/bridge ]]; then ip link del "$(cat "$dir/bridge")" 2>/dev/null || true; fi
}
new_run "$PREFIX" remove_cluster
on_exit remove_cluster

# --- The network: a bridge, and a namespace per node on it --------------------------------
# Names from this run's pid (interface names have at most 15 characters); a /24 of 10.x.y
# that no interface here uses.
id=$$
bridge=dabbr$id
while :; do
  net=10.$((16 + RANDOM % 200)).$((RANDOM % 250))
  ip -o addr show | grep -qF " $net." || break
done
echo "$bridge" >"$T/bridge"
ip link add "$bridge" type bridge
ip addr add "$net.1/24" dev "$bridge"
ip link set "$bridge" up
: >"$T/netns"
for i in $(seq "$NODES"); do
  ns=dabn$i-$id
  echo "$ns" >>"$T/netns"
  ip netns add "$ns"
  ip link add "dv$i-$id" type veth peer name eth0 netns "$ns"
  ip link set "dv$i-$id" master "$bridge" up
  ip -n "$ns" addr add "$net.$((10 + i))/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
done
ok "bridge $bridge ($net.1) and $NODES node namespaces ($net.11-$((10 + NODES)))"

# --- munge, and slurm.conf for the nodes --------------------------------------------------
start_munge
port=$((20000 + RANDOM % 20000))
cpus=2
mem=2000
nodes=""
for i in $(seq "$NODES"); do
  mkdir "$T/spool-node$i"
  nodes+="NodeName=node$i NodeAddr=$net.$((10 + i)) CPUs=$cpus RealMemory=$mem State=UNKNOWN"$'\n'
done
# The controller listens on the bridge; each slurmd, in its namespace, on its own address.
cat >"$T/slurm.conf" <<EOF
ClusterName=dabnodes
SlurmctldHost=$(hostname -s)($net.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
$(common_conf)
SlurmdSpoolDir=$T/spool-%n
SlurmdPidFile=$T/slurmd-%n.pid
SlurmdLogFile=$T/slurmd-%n.log
SlurmdTimeout=10
# A task on a lost node fails rather than being requeued, so that the loss shows: running the
# submit script again is how a run resumes.
JobRequeue=0
${nodes}PartitionName=dab Nodes=node[1-$NODES] Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$T/slurm.conf
/usr/sbin/slurmctld -D -f "$SLURM_CONF" >"$T/slurmctld.out" 2>&1 &
# Each slurmd in its node's network namespace (entered without remounting /sys, which slurmd
# reads) and a UTS namespace of its own, under the node's hostname.
start_node() {
  nsenter --net="/run/netns/dabn$1-$id" unshare --uts \
    sh -c "hostname node$1 && exec /usr/sbin/slurmd -D -N node$1 -f '$SLURM_CONF'" >>"$T/slurmd$1.out" 2>&1 &
}
for i in $(seq "$NODES"); do start_node "$i"; done
for _ in $(seq 60); do
  [[ $(sinfo --noheader --format='%t %D' 2>/dev/null) == "idle $NODES" ]] && break
  sleep 1
done
[[ $(sinfo --noheader --format='%t %D' 2>/dev/null) == "idle $NODES" ]] ||
  fail "the nodes did not come up: $(sinfo --noheader 2>&1 | head -3)"
ok "Slurm is up: $NODES nodes of $cpus CPUs, each in its own namespace"

# Helpers of the node-loss check. later.py PLAN TASK JOBCOMP: how many tasks that (through
# their inputs) come after TASK completed. missing.py PLAN DIR: tasks not done (no done marker
# in DIR/done: the task's name and the CRC-32 of its jobs' names, as dab writes it).
cat >"$T/later.py" <<'PY'
import json, re, sys
deps = {t["name"]: t["deps"] for t in json.load(open(sys.argv[1]))["tasks"]}
later, grown = {sys.argv[2]}, True
while grown:
    grown = False
    for t, d in deps.items():
        if t not in later and later.intersection(d):
            later.add(t)
            grown = True
done = set(re.findall(r" Name=dab-(t\d+) .*?JobState=COMPLETED", open(sys.argv[3]).read()))
print(len((later - {sys.argv[2]}) & done))
PY
cat >"$T/missing.py" <<'PY'
import json, os, sys, zlib
tasks = json.load(open(sys.argv[1]))["tasks"]
marker = lambda t: "%s-%08x" % (t["name"], zlib.crc32(",".join(t["jobs"]).encode()))
print(sum(not os.path.isfile(os.path.join(sys.argv[2], "done", marker(t))) for t in tasks))
PY

# --- A 3x4 plan packed for the nodes, run locally and through Slurm -------------------------
"$DAB" plan 3x4 --nodes "$NODES" --threads-per-node "$cpus" --overhead 0 -o "$T/plan.json" --out "$T/report" |
  grep '^cluster:' | tee "$T/plan.txt"
tasks=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["tasks"]))' "$T/plan.json")
((tasks >= NODES)) || fail "the plan for $NODES nodes has $tasks task(s)"
# The local run keeps the book the cluster plan keeps, so that both stores end with the same files.
book=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cluster"]["keep_lines"])' "$T/plan.json")
local_json=$("$DAB" run --plan "$T/plan.json" --store "$T/local" --keep-lines "$book" --out "$T/local-report" --json --quiet 2>/dev/null)
json_value() { python3 -c 'import json, sys; print(json.load(sys.stdin)["value"])'; }
local_value=$(json_value <<<"$local_json")
"$DAB" export slurm --plan "$T/plan.json" --store "$T/store" --out "$T/out" >/dev/null
start=$(date +%s)
bash "$T/out/submit-slurm.sh"
wait_jobs() {
  for _ in $(seq 600); do
    [[ -z $(squeue --noheader --me --format=%i) ]] && return 0
    sleep 1
  done
  fail "jobs still queued after 600 s"
}
wait_jobs
say "the cluster ran $tasks tasks and the value in $(($(date +%s) - start)) s"
[[ -f $T/out/value.json ]] || fail "no value.json: the value job did not run"
value=$(json_value <"$T/out/value.json")
[[ $value == "$local_value" ]] || fail "value $value through Slurm, $local_value locally"
ok "value $value, as the local run"

used=$(grep -o 'NodeList=node[0-9]*' "$T/jobcomp.log" | sort -u | wc -l)
((used >= NODES)) || fail "the tasks ran on $used node(s): $(grep -o 'NodeList=[^ ]*' "$T/jobcomp.log" | sort | uniq -c)"
completed=$(grep -c 'JobState=COMPLETED' "$T/jobcomp.log")
((completed == tasks + 1)) || fail "$completed of $((tasks + 1)) submissions completed"
ok "the $tasks tasks ran on $used distinct nodes (Slurm's record)"

space=$(basename "$(ls -d "$T/local/3x4"/*)")
n=0
for f in "$T/local/3x4/$space"/*.dab; do
  cmp -s "$f" "$T/store/3x4/$space/$(basename "$f")" || fail "$(basename "$f") differs from the local run's"
  n=$((n + 1))
done
(($(ls "$T/store/3x4/$space"/*.dab | wc -l) == n)) || fail "the cluster's store has other files than the local run's"
"$DAB" verify --store "$T/store" >/dev/null || fail "dab verify finds the cluster's store unsound"
ok "$n store files byte-identical to the local run's (the book of $book lines: the rest went as their readers ended), and dab verify clean"

# --- Predicted against actual: the dispatch overhead fitted on a 2x6 run, then the 3x4 run ---
# Slurm's record of the 3x4 run as a trace of tasks; a 2x6 plan packed for the same nodes run
# through Slurm to fit the per-task overhead; the 3x4 run compared with its plan predicted with
# that overhead (fitted on another board, so the comparison is a prediction, not a fit).
cp "$T/jobcomp.log" "$T/jobcomp-3x4.log"
"$DAB" cluster-trace --plan "$T/plan.json" --jobcomp "$T/jobcomp-3x4.log" -o "$T/trace-3x4.csv" --json >"$T/trace-3x4.json"
json_field() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
for k in sys.argv[2:]: d = d[k]
print(d)' "$@"; }
[[ $(json_field "$T/trace-3x4.json" unit) == task && $(json_field "$T/trace-3x4.json" missing) == "[]" ]] ||
  fail "the 3x4 trace is not one of every task: $(cat "$T/trace-3x4.json")"
: >"$T/jobcomp.log"
"$DAB" plan 2x6 --nodes "$NODES" --threads-per-node "$cpus" --overhead 0 -o "$T/plan-2x6.json" --out "$T/report-2x6" >/dev/null
"$DAB" export slurm --plan "$T/plan-2x6.json" --store "$T/store-2x6" --out "$T/out-2x6" >/dev/null
bash "$T/out-2x6/submit-slurm.sh" >/dev/null
wait_jobs
"$DAB" cluster-trace --plan "$T/plan-2x6.json" --jobcomp "$T/jobcomp.log" -o "$T/trace-2x6.csv" --json >"$T/trace-2x6.json"
fitted=$(json_field "$T/trace-2x6.json" overhead overhead_seconds)
"$DAB" compare --plan "$T/plan.json" --trace "$T/trace-3x4.csv" --overhead "$fitted" --out "$T/compare" --json >"$T/compare.json"
"$DAB" compare --plan "$T/plan.json" --trace "$T/trace-3x4.csv" --overhead "$fitted" --out "$T/compare" | tee "$T/compare.txt" |
  sed "s/^/$NAME: /"
ratio=$(json_field "$T/compare.json" actual_over_predicted)
[[ -f $T/compare/compare.png ]] || fail "dab compare wrote no chart"
python3 -c 'import sys; r = float(sys.argv[1]); sys.exit(0 if 0.75 <= r <= 1.25 else 1)' "$ratio" ||
  fail "the 3x4 cluster run took ${ratio}x its prediction with the overhead fitted on 2x6 ($fitted s a task): more than 25 % off"
ok "the 3x4 cluster run took $(printf %.2f "$ratio")x its prediction, with $fitted s a task fitted on a 2x6 run"
if [[ -n ${DAB_SLURM_RECORD:-} ]]; then # Keep Slurm's record of both runs (tests/data/cluster/tasks).
  mkdir -p "$DAB_SLURM_RECORD"
  cp "$T/plan.json" "$DAB_SLURM_RECORD/plan-3x4.json"
  cp "$T/jobcomp-3x4.log" "$DAB_SLURM_RECORD/jobcomp-3x4.log"
  cp "$T/plan-2x6.json" "$DAB_SLURM_RECORD/plan-2x6.json"
  cp "$T/jobcomp.log" "$DAB_SLURM_RECORD/jobcomp-2x6.log"
fi

# --- A node lost in the middle of a run -----------------------------------------------------
# A task in the middle of the plan waits 30 s before it starts its jobs, so that it is caught
# running; then every process in its node's namespace is killed (slurmd, slurmstepd, the task).
victim=t$((tasks / 2))
printf '#!/bin/sh\ncase " $* " in *" --task %s "*) sleep 30 ;; esac\nexec %s "$@"\n' "$victim" "'$DAB'" >"$T/dab-slow"
chmod 755 "$T/dab-slow"
: >"$T/jobcomp.log"
"$DAB" export slurm --plan "$T/plan.json" --store "$T/store2" --out "$T/out2" >/dev/null
DAB=$T/dab-slow bash "$T/out2/submit-slurm.sh" >/dev/null
node=""
for _ in $(seq 300); do
  node=$(squeue --noheader --me --name="dab-$victim" --states=RUNNING --format=%N)
  [[ -n $node ]] && break
  sleep 1
done
[[ -n $node ]] || fail "task $victim never ran"
i=${node#node}
pids=$(ip netns pids "dabn$i-$id")
[[ -n $pids ]] || fail "no process in $node's namespace"
kill -9 $pids
say "killed $(wc -w <<<"$pids") process(es) of $node while it ran $victim"
for _ in $(seq 120); do
  [[ -z $(squeue --noheader --me --format=%i) ]] && break
  sleep 1
done
[[ -z $(squeue --noheader --me --format=%i) ]] || fail "jobs still queued 120 s after $node was lost"
lost=$(grep -E "Name=dab-$victim " "$T/jobcomp.log" | grep -o 'JobState=[A-Z_]*' || true)
[[ $lost == JobState=NODE_FAIL || $lost == JobState=FAILED ]] || fail "task $victim ended '$lost'"
cancelled=$(grep -c 'JobState=CANCELLED' "$T/jobcomp.log" || true)
((cancelled > 0)) || fail "no task after $victim was cancelled"
after=$(python3 "$T/later.py" "$T/plan.json" "$victim" "$T/jobcomp.log")
((after == 0)) || fail "$after task(s) after $victim completed"
verify=$("$DAB" verify --store "$T/store2" 2>&1 || true)
grep -q ' 0 damaged, 0 unreadable' <<<"$verify" || fail "the store after the loss: $verify"
ok "$node lost while running $victim: it ended ${lost#JobState=}, $cancelled task(s) after it cancelled, none ran, no damaged file"

# The node back (as a restarted machine would be), the script again: only what is missing.
start_node "$i"
for _ in $(seq 60); do
  [[ $(sinfo --noheader --format='%t %D' 2>/dev/null) == "idle $NODES" ]] && break
  sleep 1
done
[[ $(sinfo --noheader --format='%t %D' 2>/dev/null) == "idle $NODES" ]] || fail "$node did not come back: $(sinfo --noheader)"
missing=$(python3 "$T/missing.py" "$T/plan.json" "$T/store2/3x4/$space")
again=$(bash "$T/out2/submit-slurm.sh")
[[ $again == "submitted $((missing + 1)) job(s);"* ]] || fail "with $missing task(s) missing and the value: $again"
wait_jobs
[[ $(json_value <"$T/out2/value.json") == "$local_value" ]] || fail "the resumed run's value: $(cat "$T/out2/value.json")"
for f in "$T/local/3x4/$space"/*.dab; do
  cmp -s "$f" "$T/store2/3x4/$space/$(basename "$f")" || fail "after the resume, $(basename "$f") differs"
done
(($(ls "$T/store2/3x4/$space"/*.dab | wc -l) == n)) || fail "after the resume, the store has other files than the local run's"
"$DAB" verify --store "$T/store2" >/dev/null || fail "dab verify finds the resumed store unsound"
ok "with $node back, the script submitted only the $missing missing task(s) and the value: value $local_value, every file as the local run's"

say "$passed passed, 0 failed"
