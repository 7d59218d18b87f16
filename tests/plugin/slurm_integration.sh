#!/bin/bash
# Integration test of job_submit/pacml and spank_pacml on a real Slurm 22.05
# cluster on this machine: munged, slurmctld and 32 slurmd (multiple-slurmd
# mode, all on 127.0.0.1) configured as a 4x4x2 RAMP cluster, in a temporary
# directory with its own ports, keys and state (SLURM-RECIPE.md §3). Real jobs
# are submitted with the --pacml-* options and checked with scontrol/squeue.
#
#   tests/plugin/slurm_integration.sh [BUILD_DIR]     (default: ./build)
#
# Needs root (slurmd, munged, reading files as another user) and Debian's
# slurmctld, slurmd, slurm-client and munge packages; fails loudly, never
# skips, when they are missing (`contrib/pacml-dev setup` installs them).
# Every daemon it starts is stopped on exit, also on failure. PACML_KEEP_LAB=1
# keeps the lab directory for inspection.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-${PACML_BUILD_DIR:-$src/build}}" && pwd) || exit 1
so=$build/.libs/job_submit_pacml.so
spank=$build/.libs/spank_pacml.so
pacml=$build/pacml
t_start=$(date +%s.%N)

pass=0
fail=0
say() { printf '\033[1mslurm-integration:\033[0m %s\n' "$*"; }
ok() { pass=$((pass + 1)); printf '  ok   %s\n' "$*"; }
bad() { fail=$((fail + 1)); printf '  FAIL %s\n' "$*"; }
check() { # check DESCRIPTION COMMAND...
  local what=$1; shift
  if "$@"; then ok "$what"; else bad "$what"; fi
}
die() { printf '\033[1mslurm-integration: FATAL:\033[0m %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (starts slurmd and munged, submits as another user)"
for cmd in munged mungekey munge slurmctld slurmd sbatch srun scontrol squeue sinfo scancel setpriv python3; do
  command -v "$cmd" >/dev/null ||
    die "'$cmd' not found: apt-get install slurmctld slurmd slurm-client munge (contrib/pacml-dev setup)"
done
for f in "$so" "$spank" "$pacml"; do [ -e "$f" ] || die "$f is missing: build first (make -C $build)"; done
plugindir=/usr/lib/x86_64-linux-gnu/slurm-wlm
[ -d "$plugindir" ] || die "Slurm plugin directory $plugindir not found"

LAB=$(mktemp -d /tmp/pacml-slurm-XXXXXX)
chmod 755 "$LAB"
mkdir -p "$LAB"/{etc,munge,state,spool,log,run,plugin,graphs,user}
chmod 755 "$LAB/munge" "$LAB/user"
export SLURM_CONF=$LAB/etc/slurm.conf
# Ports of this run: slurmctld, slurmd and 32 node ports, away from the default 6817/6818.
base=$((20000 + ($$ % 400) * 40))

cleanup() {
  local rc=$?
  set +e
  [ -f "$LAB/run/ctld.pid" ] && timeout 5 scancel --quiet -u root 2>/dev/null
  [ -f "$LAB/run/ctld.pid" ] && timeout 5 scancel --quiet -u nobody 2>/dev/null
  local pids=""
  [ -f "$LAB/run/slurmd.pids" ] && pids=$(cat "$LAB/run/slurmd.pids")
  [ -f "$LAB/run/ctld.pid" ] && pids="$pids $(cat "$LAB/run/ctld.pid")"
  [ -f "$LAB/munge/munged.pid" ] && pids="$pids $(cat "$LAB/munge/munged.pid")"
  for p in $pids; do kill -TERM "$p" 2>/dev/null; done
  for _ in $(seq 1 50); do
    alive=""
    for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
    [ -z "$alive" ] && break
    sleep 0.1
  done
  for p in $alive; do kill -KILL "$p" 2>/dev/null; done
  if [ "$rc" -ne 0 ] || [ "$fail" -ne 0 ]; then
    echo "---- slurmctld.log (pacml lines, last 40) ----"
    grep -i pacml "$LAB/log/slurmctld.log" 2>/dev/null | tail -40
  fi
  if [ "${PACML_KEEP_LAB:-0}" = 1 ]; then echo "lab kept in $LAB"; else rm -rf "$LAB"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the plugins, graphs and configuration ---------------------------------
cp "$so" "$spank" "$LAB/plugin/"
echo "optional $LAB/plugin/spank_pacml.so" > "$LAB/etc/plugstack.conf"
"$pacml" topology --slurm --topology 4x4x2 > "$LAB/etc/topology.conf" || die "pacml topology --slurm failed"
cp "$src/tests/fixtures/tiny.txt" "$LAB/graphs/site-tiny.txt"
cp "$src/tests/fixtures/tiny.txt" "$LAB/user/mine.txt"
chmod 644 "$LAB/user/mine.txt"
install -m 600 "$src/tests/fixtures/tiny.txt" "$LAB/secret.txt"   # root only
printf 'node1 -- Input -- forward_compute_time=SECRETVALUE, backward_compute_time=0\n' > "$LAB/user/bad.txt"
chmod 644 "$LAB/user/bad.txt"

write_pacml_conf() { # write_pacml_conf ON_BLOCK [EXTRA]
  cat > "$LAB/etc/.pacml.conf" <<EOF
# pacml.conf of the integration test
policy: min_feasible
profile: physical
topology: 4x4x2
partitions: [main]
on_block: $1
graph_dirs: [$LAB/graphs]
decision_log: $LAB/log/decisions.jsonl
time_limit_factor: 1.2
time_limit_extra: "1:00"
${2:-}
EOF
  mv "$LAB/etc/.pacml.conf" "$LAB/etc/pacml.conf"
}
write_pacml_conf reject

cat > "$SLURM_CONF" <<EOF
ClusterName=pacmllab
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$LAB/munge/munge.socket
PluginDir=$plugindir:$LAB/plugin
StateSaveLocation=$LAB/state
SlurmdSpoolDir=$LAB/spool/%n
SlurmctldPidFile=$LAB/run/slurmctld.pid
SlurmdPidFile=$LAB/run/slurmd-%n.pid
SlurmctldLogFile=$LAB/log/slurmctld.log
SlurmdLogFile=$LAB/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=3600
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
JobSubmitPlugins=pacml
TopologyPlugin=topology/tree
NodeName=n[1-32] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$((base + 2))-$((base + 33))] CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN
PartitionName=main Nodes=n[1-32] Default=YES MaxTime=INFINITE State=UP
PartitionName=other Nodes=n[1-32] MaxTime=INFINITE State=UP
EOF

# ---- daemons ------------------------------------------------------------------
say "starting munged, slurmctld and 32 slurmd in $LAB (ports $base-$((base + 33)))"
mungekey --create --keyfile="$LAB/munge/munge.key" >/dev/null 2>&1 || die "mungekey failed"
munged --key-file="$LAB/munge/munge.key" --socket="$LAB/munge/munge.socket" \
  --pid-file="$LAB/munge/munged.pid" --log-file="$LAB/munge/munged.log" \
  --seed-file="$LAB/munge/munged.seed" || die "munged failed to start"
for _ in $(seq 1 50); do [ -S "$LAB/munge/munge.socket" ] && break; sleep 0.1; done
munge -S "$LAB/munge/munge.socket" -n | unmunge -S "$LAB/munge/munge.socket" >/dev/null ||
  die "munge round trip failed"

setsid slurmctld -D -c -f "$SLURM_CONF" > "$LAB/log/slurmctld.out" 2>&1 &
echo $! > "$LAB/run/ctld.pid"
for _ in $(seq 1 100); do
  kill -0 "$(cat "$LAB/run/ctld.pid")" 2>/dev/null || { cat "$LAB/log/slurmctld.out"; die "slurmctld died"; }
  timeout 2 scontrol ping 2>/dev/null | grep -q 'is UP' && break
  sleep 0.1
done
timeout 2 scontrol ping | grep -q 'is UP' || die "slurmctld does not answer"
: > "$LAB/run/slurmd.pids"
for i in $(seq 1 32); do
  mkdir -p "$LAB/spool/n$i"
  setsid slurmd -D -N "n$i" -f "$SLURM_CONF" > "$LAB/log/slurmd-n$i.out" 2>&1 &
  echo $! >> "$LAB/run/slurmd.pids"
done
for _ in $(seq 1 200); do
  [ "$(timeout 2 sinfo -h -N -p main -t idle -o %N 2>/dev/null | wc -l)" -ge 32 ] && break
  sleep 0.1
done
[ "$(timeout 2 sinfo -h -N -p main -t idle -o %N | wc -l)" -ge 32 ] || die "the 32 nodes did not come up"
# the plugin learns the partition's nodes in the background (public API, outside job_submit)
for _ in $(seq 1 100); do
  grep -q 'pacml: partition table loaded' "$LAB/log/slurmctld.log" && break
  sleep 0.1
done
t_up=$(date +%s.%N)
say "cluster up in $(python3 -c "print(round($t_up - $t_start, 1))") s"

# ---- helpers ------------------------------------------------------------------
field() { # field JOBID KEY  -> value of KEY= in scontrol show job
  timeout 5 scontrol -o show job "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1
}
hosts() { [ -n "$1" ] && [ "$1" != "(null)" ] && timeout 5 scontrol show hostnames "$1" | sort -V | paste -sd, -; }
ping_ok() { timeout 5 scontrol ping | grep -q 'is UP'; }
submit() { # submit ARGS... -> prints the job id; stderr of sbatch in $LAB/err
  timeout 20 sbatch --parsable -o /dev/null "$@" 2> "$LAB/err"
}
decision_of() { # decision_of JOBID -> the decision log line for the job (waits for the id)
  local line=""
  for _ in $(seq 1 60); do
    line=$(grep "\"job_id\":$1," "$LAB/log/decisions.jsonl" 2>/dev/null | head -1)
    [ -n "$line" ] && break
    sleep 0.1
  done
  printf '%s' "$line"
}
json() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(d$2)" "$1"; }
is_ramp_block() { # is_ramp_block NODELIST -> the nodes' (c,r,s) form one box of the 4x4x2 grid
  python3 - "$1" <<'EOF'
import sys
idx = [int(n[1:]) - 1 for n in sys.argv[1].split(",")]
c = {i // 8 for i in idx}; r = {(i // 2) % 4 for i in idx}; s = {i % 2 for i in idx}
ok = len(c) * len(r) * len(s) == len(idx) and all(max(x) - min(x) + 1 == len(x) for x in (c, s))
sys.exit(0 if ok else 1)
EOF
}
wait_idle() { # wait_idle: all 32 nodes idle again (after scancel)
  for _ in $(seq 1 200); do
    [ "$(timeout 2 sinfo -h -N -p main -t idle -o %N 2>/dev/null | wc -l)" -ge 32 ] && return 0
    sleep 0.1
  done
  return 1
}
wait_state() { # wait_state JOBID STATE SECONDS
  for _ in $(seq 1 $(($3 * 10))); do
    [ "$(field "$1" JobState)" = "$2" ] && return 0
    sleep 0.1
  done
  return 1
}

# ---- 1. a job without pacml options is untouched -------------------------------
say "1. jobs without pacml options pass through"
j=$(submit -N 2 -t 5 --comment=plain --wrap 'sleep 1')
check "plain job submitted" [ -n "$j" ]
check "plain job: NumNodes=2 as asked" [ "$(field "$j" NumNodes | cut -d- -f1)" = 2 ]
check "plain job: TimeLimit 00:05:00 as asked" [ "$(field "$j" TimeLimit)" = 00:05:00 ]
check "plain job: no pacml annotation" [ -z "$(field "$j" AdminComment)" ]
check "plain job: comment kept" [ "$(field "$j" Comment)" = plain ]
check "plain job: no required node list" [ "$(field "$j" ReqNodeList)" = "(null)" ]
wait_state "$j" COMPLETED 20

# ---- 2. a pacml job: node count, exact node list, time limit, annotation -------
say "2. sbatch --pacml-model=gnmt --pacml-beta=0.45 is partitioned and placed"
j=$(submit --pacml-model=gnmt --pacml-beta=0.45 --wrap 'sleep 20')
check "pacml job submitted ($(cat "$LAB/err"))" [ -n "$j" ]
d=$(decision_of "$j")
check "decision logged with the Slurm job id" [ -n "$d" ]
want=$(json "$d" '["nodes"]' 2>/dev/null)
check "decision: degree 4 on 4 servers" [ "$(json "$d" '["node_count"]')" = 4 ]
check "NumNodes=4 = the decision" [ "$(field "$j" NumNodes | cut -d- -f1)" = 4 ]
check "ReqNodeList = the decision's nodes ($want)" [ "$(hosts "$(field "$j" ReqNodeList)")" = "$(echo "$want" | tr , '\n' | sort -V | paste -sd,)" ]
wait_state "$j" RUNNING 15
check "running on exactly the decided nodes" [ "$(hosts "$(field "$j" NodeList)")" = "$(echo "$want" | tr , '\n' | sort -V | paste -sd,)" ]
check "the nodes form a RAMP block" is_ramp_block "$want"
check "TimeLimit from the predicted JCT + margin (00:02:00)" [ "$(field "$j" TimeLimit)" = 00:02:00 ]
check "exclusive nodes (OverSubscribe=NO)" [ "$(field "$j" OverSubscribe)" = NO ]
check "AdminComment annotates degree, JCT and beta" \
  bash -c "scontrol -o show job $j | grep -q 'AdminComment=pacml-decision:degree=4,action=4,servers=4,jct=3.90.*beta=0.45'"
first_nodes=$want

say "   #SBATCH lines, a deadline, and srun"
cat > "$LAB/user/job.sh" <<'EOF'
#!/bin/sh
#SBATCH --pacml-model=gnmt
#SBATCH --pacml-deadline=4.2s
#SBATCH --pacml-steps=50
sleep 20
EOF
j2=$(submit "$LAB/user/job.sh")
check "#SBATCH --pacml-deadline job submitted ($(cat "$LAB/err"))" [ -n "$j2" ]
d2=$(decision_of "$j2")
nodes2=$(json "$d2" '["nodes"]' 2>/dev/null)
check "deadline 4.2 s -> degree 4, requirement 'deadline'" [ "$(json "$d2" '["requirement"]')" = deadline ]
check "second job avoids the first job's nodes" python3 -c "import sys; a=set('$first_nodes'.split(',')); b=set('$nodes2'.split(',')); sys.exit(0 if a and b and not a & b else 1)"
check "second job's nodes form a RAMP block" is_ramp_block "$nodes2"
out=$(timeout 30 srun --pacml-model=gnmt --pacml-beta=0.45 hostname 2>&1)
# Count the tasks' host names only (every slurmd of this one-machine cluster
# runs here): srun may add "queued and waiting for resources" notes when the
# decided nodes are still completing an earlier job.
check "srun --pacml-model runs one task per decided node (4): $(printf '%s' "$out" | grep -c '^srun:') srun notes" \
  [ "$(printf '%s\n' "$out" | grep -cxF "$(hostname)")" = 4 ]
printf '%s\n' "$out" | sed 's/^/    srun output: /' | head -12
timeout 10 scancel "$j" "$j2"
wait_idle

# ---- 3. requirement that cannot be met: reject mode ----------------------------
say "3. reject mode"
j=$(submit --pacml-model=gnmt --pacml-beta=0.1 --wrap true)
check "beta 0.1 rejected" [ -z "$j" ]
check "user sees why: $(head -c 160 "$LAB/err")..." grep -q "cannot meet its requirement" "$LAB/err"
check "message names the fastest possible placement" grep -q "fastest placement now is degree" "$LAB/err"
check "comment fallback (--comment=pacml:...) is decided too" \
  bash -c "j=\$(timeout 20 sbatch --parsable -o /dev/null --comment=pacml:model=gnmt,beta=0.45 --wrap 'sleep 1'); [ -n \"\$j\" ] && scontrol -o show job \$j | grep -q 'NumNodes=4'"
j=$(submit -p other --pacml-model=gnmt --pacml-beta=0.5 --wrap true)
check "partition not managed by pacml: refused" grep -q "not managed by pacml" "$LAB/err"
timeout 10 scancel -u root; wait_idle

# ---- 4. queue mode --------------------------------------------------------------
say "4. queue mode"
write_pacml_conf queue
blocker=$(submit -N 32 --exclusive --wrap 'sleep 30')
wait_state "$blocker" RUNNING 15
check "blocker holds all 32 nodes" [ "$(field "$blocker" JobState)" = RUNNING ]
q=$(submit --pacml-model=gnmt --pacml-beta=0.45 --wrap 'sleep 1')
check "blocked job accepted in queue mode ($(cat "$LAB/err"))" [ -n "$q" ]
check "queued job is PENDING" [ "$(field "$q" JobState)" = PENDING ]
check "queued at degree 4 with an exact RAMP node list" \
  bash -c "[ \"\$(scontrol -o show job $q | grep -o 'NumNodes=[0-9]*' | head -1)\" = NumNodes=4 ] && scontrol -o show job $q | grep -q 'AdminComment=pacml-decision:.*,queued'"
check "slurmctld logged why it was blocked" grep -q "queued at degree 4.*was blocked" "$LAB/log/slurmctld.log"
timeout 5 scancel "$blocker"
check "queued job runs once its nodes are free" wait_state "$q" COMPLETED 20
write_pacml_conf reject
j=$(submit --pacml-model=gnmt --pacml-beta=0.45 --wrap true)
check "config change picked up without restart (reject mode again)" [ -n "$j" ]

# ---- 5. 50 concurrent submissions -------------------------------------------------
say "5. 50 concurrent submissions"
timeout 10 scancel -u root; wait_idle
write_pacml_conf queue
: > "$LAB/ids"
t0=$(date +%s.%N)
for i in $(seq 1 50); do
  if [ $((i % 5)) = 0 ]; then opts="--pacml-model=gnmt --pacml-beta=0.45"; else opts="--pacml-model=resnet50 --pacml-beta=1"; fi
  ( timeout 60 sbatch --parsable -o /dev/null $opts --wrap 'sleep 1' >> "$LAB/ids" 2>> "$LAB/err50" ) &
  subs="${subs:-} $!"
done
for p in $subs; do wait "$p"; done   # not a bare `wait`: the daemons are children too
t1=$(date +%s.%N)
n=$(grep -c '^[0-9]' "$LAB/ids")
check "50 submitted concurrently, all accepted ($n; $(python3 -c "print(round($t1 - $t0, 2))") s)" [ "$n" = 50 ]
decided=0
for id in $(cat "$LAB/ids"); do
  timeout 5 scontrol -o show job "$id" | grep -q 'AdminComment=pacml-decision:' && decided=$((decided + 1))
done
check "all 50 decided by pacml ($decided)" [ "$decided" = 50 ]
overlap=0
for _ in $(seq 1 600); do
  snapshot=$(timeout 5 squeue -h -t R -o '%N' | while read -r nl; do hosts "$nl"; done | tr , '\n' | grep .)
  if [ -n "$snapshot" ] && [ "$(printf '%s\n' "$snapshot" | wc -l)" != "$(printf '%s\n' "$snapshot" | sort -u | wc -l)" ]; then
    overlap=1; echo "    shared node among running jobs: $(printf '%s\n' "$snapshot" | sort | uniq -d | paste -sd,)"
  fi
  [ -z "$(timeout 5 squeue -h -t PD,R,CF -o %i)" ] && break
  sleep 0.2
done
check "no two running jobs ever shared a node" [ "$overlap" = 0 ]
check "all 50 finished" [ -z "$(timeout 5 squeue -h -t PD,R,CF -o %i)" ]
completed=$(for id in $(cat "$LAB/ids"); do field "$id" JobState; done | grep -c COMPLETED)
check "all 50 COMPLETED ($completed)" [ "$completed" = 50 ]
say "   50 jobs submitted in $(python3 -c "print(round($t1 - $t0, 2))") s, all done $(python3 -c "import time; print(round(time.time() - $t0, 1))") s after the first submit"
write_pacml_conf reject

# ---- 6. bad input: clear messages, slurmctld keeps answering -----------------------
say "6. bad input"
j=$(submit --pacml-graph="$LAB/user/bad.txt" --pacml-beta=0.5 --wrap true)
check "malformed graph rejected with file:line" grep -q "bad.txt:1: not a valid PipeDream graph" "$LAB/err"
check "malformed graph: contents not echoed" bash -c "! grep -q SECRETVALUE '$LAB/err' && ! grep -q SECRETVALUE '$LAB/log/slurmctld.log'"
check "slurmctld answers (malformed graph)" ping_ok
j=$(submit --pacml-model=resnet9000 --pacml-beta=0.5 --wrap true)
check "unknown model: message lists the zoo" grep -q "unknown model 'resnet9000'; known: alexnet" "$LAB/err"
check "slurmctld answers (unknown model)" ping_ok
j=$(submit --pacml-model=gnmt --pacml-deadline=-10 --wrap true)
check "negative deadline refused by the SPANK option" grep -q "pacml-deadline: must not be negative" "$LAB/err"
j=$(submit --comment=pacml:model=gnmt,deadline=-5 --wrap true)
check "negative deadline (comment) refused by slurmctld" grep -q "deadline must not be negative" "$LAB/err"
j=$(submit --pacml-model=gnmt --pacml-beta=1.5 --wrap true)
check "beta out of range refused" grep -q "pacml-beta: expected a fraction" "$LAB/err"
check "slurmctld answers (bad options)" ping_ok
write_pacml_conf reject "" && sed -i "s|^policy: .*|policy: pacml:$LAB/missing-weights.pacw|" "$LAB/etc/pacml.conf"
j=$(submit --pacml-model=gnmt --pacml-beta=0.45 --wrap 'sleep 1')
check "missing weights file: logged" grep -q "missing-weights.pacw.*keeping the last good configuration" "$LAB/log/slurmctld.log"
check "missing weights file: jobs still decided with the last good config" [ "$(field "$j" NumNodes | cut -d- -f1)" = 4 ]
check "slurmctld answers (missing weights)" ping_ok
echo "policy: [unclosed" > "$LAB/etc/pacml.conf"
j=$(submit --pacml-model=gnmt --pacml-beta=0.45 --wrap 'sleep 1')
check "broken pacml.conf: logged with file:line" grep -q "pacml.conf:[0-9]*: not valid YAML.*keeping the last good" "$LAB/log/slurmctld.log"
check "broken pacml.conf: jobs still decided" [ "$(field "$j" NumNodes | cut -d- -f1)" = 4 ]
check "slurmctld answers (broken pacml.conf)" ping_ok
write_pacml_conf reject
timeout 10 scancel -u root; wait_idle

# ---- 7. security: users' graph files are read with the user's rights ----------------
say "7. graph files and user rights"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups env SLURM_CONF="$SLURM_CONF" "$@"; }
j=$(cd "$LAB/user" && as_nobody timeout 20 sbatch --parsable -o /dev/null --chdir=/tmp \
  --pacml-graph="$LAB/secret.txt" --pacml-beta=1 --wrap true 2> "$LAB/err")
check "nobody pointing --pacml-graph at a root-only file is refused" grep -q "secret.txt: cannot read: Permission denied" "$LAB/err"
j=$(submit --pacml-graph="$LAB/secret.txt" --pacml-beta=1 --wrap true)
check "root may use the same file" [ -n "$j" ]
j=$(cd "$LAB/user" && as_nobody timeout 20 sbatch --parsable -o /dev/null --chdir=/tmp \
  --pacml-graph=mine.txt --pacml-beta=1 --wrap true 2> "$LAB/err")
check "nobody's own file, relative to the submit directory ($(cat "$LAB/err"))" [ -n "$j" ]
j=$(cd /tmp && submit --pacml-graph=site-tiny.txt --pacml-beta=1 --wrap true)
check "a bare name comes from the admin's graph_dirs" [ -n "$j" ]
check "slurmctld answers" ping_ok
timeout 10 scancel -u root; timeout 10 scancel -u nobody

# ---- 8. the decision log replays through pacml replay -------------------------------
say "8. decision log and replay"
sleep 1
lines=$(grep -c . "$LAB/log/decisions.jsonl")
with_id=$(grep -c '"job_id":[0-9]' "$LAB/log/decisions.jsonl")
check "decision log written ($lines lines, $with_id with Slurm job ids)" [ "$lines" -ge 55 ]
check "pacml replay reads the decision log" \
  bash -c "'$pacml' replay '$LAB/log/decisions.jsonl' --format pacml-log --policies min_feasible --no-plots > '$LAB/replay.txt' 2>&1"
"$src/contrib/slurm/pacml-log-to-trace" "$LAB/log/decisions.jsonl" "$LAB/trace.json"
check "the converted log (squeue --json shape) replays too" \
  bash -c "'$pacml' replay '$LAB/trace.json' --format squeue-json --policies min_feasible --no-plots > '$LAB/replay2.txt' 2>&1"
check "slurm's topology/tree sees pacml's RAMP switches" bash -c "timeout 5 scontrol show topology | grep -q 'SwitchName=g1r1 .*Nodes=n\[1-2\]'"
check "slurmctld still alive at the end" ping_ok

# ---- 9. end-to-end sbatch latency, with and without the plugin (figures only) --------
n_lat=${PACML_SBATCH_SAMPLES:-20}
say "9. sbatch latency ($n_lat held submissions each)"
write_pacml_conf reject "reservation_ttl: 0"
latency() { # latency LABEL SBATCH-ARGS... -> median and max in ms
  local label=$1 times="" failed=0
  shift
  for _ in $(seq 1 "$n_lat"); do
    local a b
    a=$(date +%s%N)
    timeout 20 sbatch --parsable --hold -o /dev/null "$@" > /dev/null 2>> "$LAB/err9" || failed=$((failed + 1))
    b=$(date +%s%N)
    times="$times $(((b - a) / 1000))"
  done
  python3 -c "import sys, statistics as s; v=sorted(int(x)/1000 for x in sys.argv[2:]); print(f'  {sys.argv[1]:48s} median {s.median(v):6.1f} ms  p90 {v[int(0.9*len(v))]:6.1f} ms  max {v[-1]:6.1f} ms')" "$label" $times
  check "$label: all $n_lat submissions accepted" [ "$failed" = 0 ]
}
latency "plugin loaded, job without pacml options" --wrap true
latency "plugin loaded, --pacml-model=resnet50 (1 node)" --pacml-model=resnet50 --pacml-beta=1 --wrap true
latency "plugin loaded, --pacml-model=gnmt (4 nodes)" --pacml-model=gnmt --pacml-beta=0.45 --wrap true
sed -i 's/^JobSubmitPlugins=pacml$/#JobSubmitPlugins=pacml/' "$SLURM_CONF"
timeout 10 scontrol reconfigure
sleep 1
latency "no job_submit plugin" --wrap true
check "slurmctld answers after removing the plugin" ping_ok
timeout 10 scancel -u root

t_end=$(date +%s.%N)
say "$pass passed, $fail failed in $(python3 -c "print(round($t_end - $t_start, 1))") s"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
