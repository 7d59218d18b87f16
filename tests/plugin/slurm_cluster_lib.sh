# shellcheck shell=bash
# The local Slurm test cluster shared by slurm_integration.sh and
# slurm_soak.sh (sourced, not run): munged, slurmctld and 32 slurmd
# (multiple-slurmd mode, all on 127.0.0.1) configured as a 4x4x2 RAMP
# cluster, in a temporary directory with its own ports, keys and state
# (doc/SLURM.md §3), with job_submit/pacml and spank_pacml loaded.
#
#   . tests/plugin/slurm_cluster_lib.sh
#   lab_init NAME BUILD_DIR       checks, $LAB, plugins, trap that stops everything
#   lab_write_pacml_conf ON_BLOCK [EXTRA]
#   lab_write_slurm_conf [MIN_JOB_AGE]
#   lab_write_gpu_slurm_conf [MIN_JOB_AGE]  instead: 8 nodes of 4 GPUs (GRES on
#                                 fake device files), no RAMP topology
#   lab_start                     munged, slurmctld, $lab_nodes slurmd; waits until idle
#   lab_set_sched_params [TOKENS] SchedulerParameters=<lab's>,TOKENS + scontrol reconfigure
#   lab_stop                      stops the daemons (the EXIT trap does it too)
#
# The NodeName line is generated, not hand-written: `pacml topology
# --slurm-nodes --host-attrs` gives every node this machine's CPUs, sockets,
# cores, threads and memory as hwloc sees them (`pacml node describe`), and
# slurm.conf includes that fragment ($LAB/etc/ramp-nodes.conf).
#
# Needs root and Debian's slurmctld, slurmd, slurm-client and munge packages;
# fails loudly, never skips, when they are missing. Every daemon started here
# is stopped on exit (EXIT trap), also on failure. PACML_KEEP_LAB=1 keeps the
# lab directory for inspection.

lab_sched_base="batch_sched_delay=0,sched_min_interval=0"

say() { printf '\033[1m%s:\033[0m %s\n' "$lab_name" "$*"; }
ok() { pass=$((pass + 1)); printf '  ok   %s\n' "$*"; }
bad() { fail=$((fail + 1)); printf '  FAIL %s\n' "$*"; }
check() { # check DESCRIPTION COMMAND...
  local what=$1; shift
  if "$@"; then ok "$what"; else bad "$what"; fi
}
die() { printf '\033[1m%s: FATAL:\033[0m %s\n' "$lab_name" "$*" >&2; exit 1; }

lab_init() { # lab_init NAME BUILD_DIR
  lab_name=$1
  src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  build=$(cd "${2:-${PACML_BUILD_DIR:-$src/build}}" && pwd) || exit 1
  so=$build/.libs/job_submit_pacml.so
  spank=$build/.libs/spank_pacml.so
  pacml=$build/pacml
  # hwloc's PCI plugin leaks (LeakSanitizer) in a sanitizer build's pacml
  pacml_env=()
  grep -q -- '-fsanitize=address' "$build/Makefile" 2>/dev/null && pacml_env=(env HWLOC_COMPONENTS=-pci)
  pass=0
  fail=0
  lab_nodes=32
  [ "$(id -u)" -eq 0 ] || die "must run as root (starts slurmd and munged, submits as another user)"
  local cmd f
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
  trap lab_cleanup EXIT
  trap 'exit 130' INT TERM

  cp "$so" "$spank" "$LAB/plugin/"
  echo "optional $LAB/plugin/spank_pacml.so" > "$LAB/etc/plugstack.conf"
  "${pacml_env[@]}" "$pacml" topology --slurm --topology 4x4x2 > "$LAB/etc/topology.conf" ||
    die "pacml topology --slurm failed"
}

lab_cleanup() {
  local rc=$?
  set +e
  lab_stop
  if [ "$rc" -ne 0 ] || [ "$fail" -ne 0 ]; then
    echo "---- slurmctld.log (pacml lines, last 40) ----"
    grep -i pacml "$LAB/log/slurmctld.log" 2>/dev/null | tail -40
  fi
  if [ "${PACML_KEEP_LAB:-0}" = 1 ]; then echo "lab kept in $LAB"; else rm -rf "$LAB"; fi
  exit "$rc"
}

lab_stop() { # stops every daemon lab_start started (again: nothing to do)
  [ -f "$LAB/run/ctld.pid" ] && timeout 5 scancel --quiet -u root 2>/dev/null
  [ -f "$LAB/run/ctld.pid" ] && timeout 5 scancel --quiet -u nobody 2>/dev/null
  local pids="" p alive=""
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
  rm -f "$LAB/run/slurmd.pids" "$LAB/run/ctld.pid" "$LAB/munge/munged.pid"
}

lab_write_pacml_conf() { # lab_write_pacml_conf ON_BLOCK [EXTRA]
  # EXTRA's keys replace the template's (pacml.conf refuses a key given twice).
  awk -v extra="${2:-}" '
    BEGIN { n = split(extra, lines, "\n")
            for (i = 1; i <= n; i++)
              if (match(lines[i], /^[a-z_]+:/)) own[substr(lines[i], 1, RLENGTH - 1)] = 1 }
    match($0, /^[a-z_]+:/) && (substr($0, 1, RLENGTH - 1) in own) { next }
    { print }
    END { print extra }' > "$LAB/etc/.pacml.conf" <<EOF
# pacml.conf of the $lab_name test
policy: min_feasible
profile: physical
topology: 4x4x2
partitions: [main]
on_block: $1
graph_dirs: [$LAB/graphs]
decision_log: $LAB/log/decisions.jsonl
time_limit_factor: 1.2
time_limit_extra: "1:00"
EOF
  mv "$LAB/etc/.pacml.conf" "$LAB/etc/pacml.conf"
}

lab_write_slurm_conf() { # lab_write_slurm_conf [MIN_JOB_AGE]
  # The nodes: this machine's hardware (hwloc), 32 names on localhost, one port each.
  "${pacml_env[@]}" "$pacml" topology --slurm-nodes --topology 4x4x2 --host-attrs --partition main \
    --node-attrs "NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$((base + 2))-$((base + 33))] State=UNKNOWN" \
    > "$LAB/etc/ramp-nodes.conf" || die "pacml topology --slurm-nodes --host-attrs failed"
  grep -q '^NodeName=n\[1-32\] CPUs=[0-9]' "$LAB/etc/ramp-nodes.conf" ||
    die "no NodeName line with CPUs in the generated fragment: $(cat "$LAB/etc/ramp-nodes.conf")"
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
# verbose: the SPANK plugin logs each plan it asks slurmctld for (one RPC per
# step of a pacml job), which the GPU integration test counts
SlurmdDebug=verbose
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=$lab_sched_base
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=${1:-3600}
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
JobSubmitPlugins=pacml
# NodeName, PartitionName=main and TopologyPlugin: generated by pacml (see the file)
Include $LAB/etc/ramp-nodes.conf
PartitionName=other Nodes=n[1-32] MaxTime=INFINITE State=UP
EOF
}

lab_write_gpu_slurm_conf() { # lab_write_gpu_slurm_conf [MIN_JOB_AGE]
  # The same daemons, but 8 nodes of 8 CPUs and 4 GPUs each (CPUs above this
  # machine's: SlurmdParameters=config_overrides). The GPUs are GRES on
  # character devices under $LAB/dev made like /dev/null (1,3): slurmd stats
  # them for their major/minor, and nothing opens them.
  lab_write_slurm_conf "$@"
  lab_nodes=8
  mkdir -p "$LAB/dev"
  local i
  for i in 0 1 2 3; do mknod "$LAB/dev/nvidia$i" c 1 3 || die "mknod $LAB/dev/nvidia$i failed"; done
  cat > "$LAB/etc/gpu-nodes.conf" <<EOF
NodeName=n[1-8] CPUs=8 Gres=gpu:4 NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$((base + 2))-$((base + 9))] State=UNKNOWN
PartitionName=main Nodes=n[1-8] Default=YES MaxTime=INFINITE State=UP
EOF
  echo "NodeName=n[1-8] Name=gpu File=$LAB/dev/nvidia[0-3]" > "$LAB/etc/gres.conf"
  sed -i -e "s|^Include .*|GresTypes=gpu\nInclude $LAB/etc/gpu-nodes.conf|" \
    -e '/^PartitionName=other/d' "$SLURM_CONF"
}

lab_ctld_pid() { cat "$LAB/run/ctld.pid"; }

lab_start() {
  say "starting munged, slurmctld and $lab_nodes slurmd in $LAB (ports $base-$((base + lab_nodes + 1)))"
  mungekey --create --keyfile="$LAB/munge/munge.key" >/dev/null 2>&1 || die "mungekey failed"
  munged --key-file="$LAB/munge/munge.key" --socket="$LAB/munge/munge.socket" \
    --pid-file="$LAB/munge/munged.pid" --log-file="$LAB/munge/munged.log" \
    --seed-file="$LAB/munge/munged.seed" || die "munged failed to start"
  for _ in $(seq 1 50); do [ -S "$LAB/munge/munge.socket" ] && break; sleep 0.1; done
  munge -S "$LAB/munge/munge.socket" -n | unmunge -S "$LAB/munge/munge.socket" >/dev/null ||
    die "munge round trip failed"

  # No PACML_MODELS_DIR: slurmctld finds installed models as a site's would.
  env -u PACML_MODELS_DIR setsid slurmctld -D -c -f "$SLURM_CONF" > "$LAB/log/slurmctld.out" 2>&1 &
  echo $! > "$LAB/run/ctld.pid"
  for _ in $(seq 1 100); do
    kill -0 "$(lab_ctld_pid)" 2>/dev/null || { cat "$LAB/log/slurmctld.out"; die "slurmctld died"; }
    timeout 2 scontrol ping 2>/dev/null | grep -q 'is UP' && break
    sleep 0.1
  done
  timeout 2 scontrol ping | grep -q 'is UP' || die "slurmctld does not answer"
  : > "$LAB/run/slurmd.pids"
  local i
  for i in $(seq 1 "$lab_nodes"); do
    mkdir -p "$LAB/spool/n$i"
    setsid slurmd -D -N "n$i" -f "$SLURM_CONF" > "$LAB/log/slurmd-n$i.out" 2>&1 &
    echo $! >> "$LAB/run/slurmd.pids"
  done
  for _ in $(seq 1 200); do
    [ "$(timeout 2 sinfo -h -N -p main -t idle -o %N 2>/dev/null | wc -l)" -ge "$lab_nodes" ] && break
    sleep 0.1
  done
  [ "$(timeout 2 sinfo -h -N -p main -t idle -o %N | wc -l)" -ge "$lab_nodes" ] ||
    die "the $lab_nodes nodes did not come up"
  # the plugin learns the partition's nodes in the background (public API, outside job_submit)
  grep -q '^JobSubmitPlugins=.*pacml' "$SLURM_CONF" || return 0   # a run without the plugin
  for _ in $(seq 1 100); do
    grep -q 'pacml: partition table loaded' "$LAB/log/slurmctld.log" && break
    sleep 0.1
  done
}

lab_set_sched_params() { # lab_set_sched_params [PACML_TOKENS]: slurm.conf edit + reconfigure
  sed -i "s|^SchedulerParameters=.*|SchedulerParameters=$lab_sched_base${1:+,$1}|" "$SLURM_CONF"
  timeout 20 scontrol reconfigure
}

# ---- helpers for checks ---------------------------------------------------------
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
# wait_idle: all $lab_nodes nodes idle again (after scancel), and no job still
# completing: a node sinfo lists as idle may still be held by a cancelled
# job's completion, and the next job would then be placed elsewhere.
wait_idle() {
  for _ in $(seq 1 200); do
    if [ "$(timeout 2 sinfo -h -N -p main -t idle -o %N 2>/dev/null | wc -l)" -ge "$lab_nodes" ] &&
      [ "$(timeout 2 squeue -h -t CG -o %i 2>/dev/null | wc -l)" -eq 0 ] &&
      ! timeout 2 sinfo -h -N -p main -o %t 2>/dev/null | grep -qv '^idle$'; then
      return 0
    fi
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
seconds_since() { python3 -c "import time; print(round(time.time() - $1, 1))"; }
