# What tests/slurm-live.sh and tests/slurm-cluster.sh share; sourced, never run. The sourcing
# script sets NAME (its messages' prefix) and, once made, T (its temporary folder).

say() { echo "$NAME: $*"; }
fail() {
  echo "$NAME: FAILED: $*" >&2
  echo "$NAME: logs are in ${T:-?} (slurmctld.log, slurmd*.log, out*/logs)" >&2
  exit 1
}
passed=0
ok() {
  passed=$((passed + 1))
  say "ok: $*"
}

# kill_recorded DIR: stops every daemon whose pid DIR records, if it still runs with DIR on
# its command line (a pid reused by another process is left alone).
kill_recorded() {
  local dir=$1 f pid
  for f in "$dir"/*.pid "$dir"/munge/munged.pid; do
    [[ -f $f ]] || continue
    pid=$(cat "$f")
    if [[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$dir"; then
      kill "$pid" 2>/dev/null || true
    fi
  done
}

# start_munge: munged with its own key and socket under $T/munge.
start_munge() {
  mkdir -m 711 "$T/munge"
  head -c 1024 /dev/urandom >"$T/munge/munge.key"
  chmod 600 "$T/munge/munge.key"
  /usr/sbin/munged --force --socket="$T/munge/socket" --key-file="$T/munge/munge.key" \
    --log-file="$T/munge/munged.log" --pid-file="$T/munge/munged.pid" --seed-file="$T/munge/munged.seed" ||
    fail "munged did not start (see $T/munge/munged.log)"
}

# common_conf: the slurm.conf lines both clusters share. Containers have no cgroups to give
# Slurm: track processes by /proc, bind no tasks, gather no accounting; jobs get cores and
# memory. batch_sched_delay=0 starts a job as soon as its dependencies are done (the default
# lets the scheduler wait up to 3 s).
common_conf() {
  mkdir -p "$T/state"
  cat <<EOF
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/socket
StateSaveLocation=$T/state
SlurmctldPidFile=$T/slurmctld.pid
SlurmctldLogFile=$T/slurmctld.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$T/jobcomp.log
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0
MpiDefault=none
ReturnToService=2
EOF
}

# new_run PREFIX CLEAN: first, for every folder PREFIX* of an earlier run whose owner no longer
# runs, CLEAN FOLDER (what that run left running) and the folder removed; then T, a fresh
# folder of this run's.
new_run() {
  local old
  for old in "$1"*/; do
    [[ -f $old/owner ]] || continue
    kill -0 "$(cat "$old/owner")" 2>/dev/null && continue # Still running: not ours to stop.
    "$2" "${old%/}"
    rm -rf "$old"
  done
  T=$(mktemp -d "${1}XXXXXX")
  chmod 755 "$T"
  echo $$ >"$T/owner"
}

# on_exit CLEAN: when the script ends, however it ends, CLEAN T stops what this run started,
# and T is removed if the script passed (kept with its logs otherwise); a failing command is
# named with its line.
on_exit() {
  CLEAN=$1
  trap 'code=$?; "$CLEAN" "$T"; wait 2>/dev/null || true; if ((code == 0)); then rm -rf "$T"; fi; exit "$code"' EXIT
  trap 'exit 130' INT TERM
  trap 'echo "$NAME: FAILED at line $LINENO: $BASH_COMMAND" >&2' ERR
}
