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
#   lab_enable_accounting         opt-in, before lab_start: real accounting (a private
#                                 MariaDB and slurmdbd in $LAB), so sacct shows the
#                                 lab's jobs; they outlive lab_stop (sacct after the
#                                 cluster is gone) and the EXIT trap stops them
#
# The NodeName line is generated, not hand-written: `pacml topology
# --slurm-nodes --host-attrs` gives every node this machine's CPUs, sockets,
# cores, threads and memory as hwloc sees them (`pacml node describe`), and
# slurm.conf includes that fragment ($LAB/etc/ramp-nodes.conf).
#
# Needs root and Debian's slurmctld, slurmd, slurm-client and munge packages
# (with lab_enable_accounting also mariadb-server and slurmdbd);
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
  lab_stop_accounting
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
  local pids=""
  [ -f "$LAB/run/slurmd.pids" ] && pids=$(cat "$LAB/run/slurmd.pids")
  [ -f "$LAB/run/ctld.pid" ] && pids="$pids $(cat "$LAB/run/ctld.pid")"
  # with accounting munged stays, for sacct (slurmdbd authenticates it): lab_stop_accounting
  if [ "${lab_accounting:-0}" = 0 ] && [ -f "$LAB/munge/munged.pid" ]; then
    pids="$pids $(cat "$LAB/munge/munged.pid")"
    rm -f "$LAB/munge/munged.pid"
  fi
  lab_kill_wait $pids $(lab_step_daemons)
  rm -f "$LAB/run/slurmd.pids" "$LAB/run/ctld.pid"
}

# The lab's slurmstepd processes (each writes to a log in $LAB): under 24.11
# one of a finished standalone srun sometimes outlives its job and slurmd,
# ignoring SIGTERM (seen after the GPU test's section 7b); a real cluster's
# are never matched.
lab_step_daemons() {
  local f p
  for f in /proc/[0-9]*/comm; do
    [ "$(cat "$f" 2>/dev/null)" = slurmstepd ] || continue
    p=${f#/proc/}
    p=${p%/comm}
    ls -l "/proc/$p/fd" 2>/dev/null | grep -q "$(basename "$LAB")/" && echo "$p"
  done
}

lab_kill_wait() { # lab_kill_wait PID...: TERM, up to 5 s to exit, then KILL
  local p alive=""
  for p in "$@"; do kill -TERM "$p" 2>/dev/null; done
  for _ in $(seq 1 50); do
    alive=""
    for p in "$@"; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
    [ -z "$alive" ] && break
    sleep 0.1
  done
  for p in $alive; do kill -KILL "$p" 2>/dev/null; done
}

# ---- accounting: a private MariaDB and slurmdbd ----------------------------------
# Researchers replay sacct's history of their cluster (`pacml replay --format
# sacct`), so the lab can keep one: MariaDB's datadir, socket and port, and
# slurmdbd's config, port and log all live in $LAB (ports base+36 and base+37
# of the lab's 40); the system's MariaDB and /etc/slurm are never used.
# AccountingStorageEnforce stays off: jobs need no association to run.

lab_enable_accounting() { # before lab_start (and before or after lab_write_*_slurm_conf)
  local cmd
  for cmd in mariadb-install-db mariadbd mariadb slurmdbd sacct sacctmgr; do
    command -v "$cmd" >/dev/null ||
      die "'$cmd' not found: apt-get install mariadb-server slurmdbd (contrib/pacml-dev setup)"
  done
  lab_accounting=1
  db_port=$((base + 36))
  dbd_port=$((base + 37))
  # slurmdbd's database password: random per lab, only in a file of mode 600
  db_pass=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
}

lab_accounting_conf() { # slurm.conf's accounting lines, once (lab_start)
  grep -q '^AccountingStorageType=accounting_storage/slurmdbd' "$SLURM_CONF" && return 0
  sed -i '/^AccountingStorageType=/d' "$SLURM_CONF"
  {
    echo "AccountingStorageType=accounting_storage/slurmdbd"
    echo "AccountingStorageHost=localhost"
    echo "AccountingStoragePort=$dbd_port"
    # for slurmdbd, the munged socket (AuthInfo's socket= is not used for it)
    echo "AccountingStoragePass=$LAB/munge/munge.socket"
    # GPUs are accounted (sacct's AllocTRES gres/gpu=N) only when named here
    if grep -q '^GresTypes=.*gpu' "$SLURM_CONF"; then echo "AccountingStorageTRES=gres/gpu"; fi
    # the Comment holds pacml's request (model, β, deadline), which a replay reads
    echo "AccountingStoreFlags=job_comment"
  } >> "$SLURM_CONF"
}

lab_start_accounting() { # MariaDB, slurmdbd, the cluster in the database (munged runs)
  say "starting a private MariaDB (port $db_port) and slurmdbd (port $dbd_port)"
  mkdir -p "$LAB/mysql"
  mariadb-install-db --no-defaults --datadir="$LAB/mysql" --user=root \
    --auth-root-authentication-method=normal --skip-test-db > "$LAB/log/mariadb-install.log" 2>&1 ||
    { tail -n 20 "$LAB/log/mariadb-install.log"; die "mariadb-install-db failed (log above)"; }
  # --user=root: a private instance in a root-owned temporary directory
  setsid mariadbd --no-defaults --datadir="$LAB/mysql" --user=root --bind-address=127.0.0.1 \
    --port="$db_port" --socket="$LAB/run/mariadb.sock" --pid-file="$LAB/run/mariadbd.pid" \
    --log-error="$LAB/log/mariadbd.log" --skip-name-resolve --innodb-buffer-pool-size=64M \
    --innodb-lock-wait-timeout=900 > /dev/null 2>&1 &
  echo $! > "$LAB/run/mariadbd.pids"
  local sql=(mariadb --no-defaults -u root --socket="$LAB/run/mariadb.sock")
  for _ in $(seq 1 300); do
    "${sql[@]}" -e 'SELECT 1' >/dev/null 2>&1 && break
    kill -0 "$(cat "$LAB/run/mariadbd.pids")" 2>/dev/null ||
      { tail -n 20 "$LAB/log/mariadbd.log"; die "mariadbd died (log above)"; }
    sleep 0.1
  done
  "${sql[@]}" -e "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$db_pass';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" ||
    die "MariaDB at $LAB/run/mariadb.sock: cannot create slurmdbd's user (log: $LAB/log/mariadbd.log)"

  # slurmdbd finds slurmdbd.conf beside $SLURM_CONF; it must be 600 and SlurmUser's (root)
  ( umask 077; cat > "$LAB/etc/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$LAB/munge/munge.socket
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$dbd_port
SlurmUser=root
LogFile=$LAB/log/slurmdbd.log
PidFile=$LAB/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=slurm
StoragePass=$db_pass
StorageLoc=slurm_acct_db
EOF
  )
  # PACML_LAB_SLURMDBD_LIBS=DIR: slurmdbd loads its MariaDB client library
  # from DIR (contrib/pacml-dev: Debian 13's libmariadb3 11.8.9 fails
  # slurmdbd 24.11.5 at start; plugin/README.md, "Slurm releases")
  setsid env ${PACML_LAB_SLURMDBD_LIBS:+LD_LIBRARY_PATH="$PACML_LAB_SLURMDBD_LIBS"} \
    slurmdbd -D > "$LAB/log/slurmdbd.out" 2>&1 &
  echo $! > "$LAB/run/slurmdbd.pids"
  # The cluster must be in the database before slurmctld starts, or slurmctld
  # sends it no jobs. An account and the lab's users give the jobs an
  # association (for the record only: Enforce is off).
  for _ in $(seq 1 100); do
    timeout 3 sacctmgr -i add cluster pacmllab > "$LAB/log/sacctmgr.out" 2>&1 && break
    kill -0 "$(cat "$LAB/run/slurmdbd.pids")" 2>/dev/null ||
      { tail -n 20 "$LAB/log/slurmdbd.log" "$LAB/log/slurmdbd.out"; die "slurmdbd died (logs above)"; }
    sleep 0.2
  done
  timeout 5 sacctmgr -n -P list cluster format=cluster 2>/dev/null | grep -qx pacmllab ||
    { cat "$LAB/log/sacctmgr.out"; die "sacctmgr could not add the cluster pacmllab to slurmdbd (port $dbd_port, log $LAB/log/slurmdbd.log)"; }
  { timeout 10 sacctmgr -i add account lab Cluster=pacmllab &&
    timeout 10 sacctmgr -i add user root,nobody Account=lab Cluster=pacmllab; } >> "$LAB/log/sacctmgr.out" 2>&1 ||
    { cat "$LAB/log/sacctmgr.out"; die "sacctmgr could not add the account lab and its users"; }
}

lab_stop_accounting() { # slurmdbd, then MariaDB, then munged (again: nothing to do)
  [ "${lab_accounting:-0}" = 1 ] || return 0
  local f
  for f in "$LAB/run/slurmdbd.pids" "$LAB/run/mariadbd.pids" "$LAB/munge/munged.pid"; do
    # shellcheck disable=SC2046 # one pid per file
    [ -f "$f" ] && lab_kill_wait $(cat "$f")
    rm -f "$f"
  done
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
world: gpu
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
  if [ "${lab_accounting:-0}" = 1 ]; then
    lab_accounting_conf
    lab_start_accounting
  fi

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
  local loads
  loads=$(grep -c 'job_submit/pacml loaded' "$LAB/log/slurmctld.log")
  timeout 20 scontrol reconfigure || return 1
  lab_restarts_on_reconfigure && loads=$((loads + 1))
  lab_wait_pacml_ready "$loads"
}

# From Slurm 23.11 on `scontrol reconfigure` starts a new slurmctld (after
# scontrol has returned), and with it job_submit/pacml, which passes jobs
# through unchanged (and says so) until its first partition table has loaded
# and the nodes have registered again (plugin/ctld_poller.h). 22.05 keeps
# the loaded plugin.
lab_restarts_on_reconfigure() { lab_release_at_least 23.11; }

lab_release_at_least() { # lab_release_at_least MAJOR.MINOR: the Slurm of scontrol
  local v
  v=$(scontrol --version | awk '{ print $2 }')
  [ "$(printf '%s\n%s\n' "${v%.*}" "$1" | sort -V | head -1)" = "$1" ]
}

# The GRES prefix of TRES requests as scontrol shows them (and job_submit/pacml
# writes them: plugin/slurm_release.h): gres/gpu:4 from Slurm 23.02 on.
lab_gres_prefix() { if lab_release_at_least 23.02; then echo gres/; else echo gres:; fi; }

# lab_wait_pacml_ready LOADS: until job_submit/pacml has been loaded LOADS
# times and its latest load has read the partitions and seen the nodes
# registered, up to 10 s, as a site's next submission would not.
lab_wait_pacml_ready() {
  local log=$LAB/log/slurmctld.log i
  for i in $(seq 1 100); do
    [ "$(grep -c 'job_submit/pacml loaded' "$log")" -ge "$1" ] &&
      [ "$(grep -c 'pacml: partition table loaded' "$log")" -ge "$1" ] &&
      [ "$(grep -c 'pacml: .* nodes have \(not \)\?registered' "$log")" -ge "$1" ] &&
      ping_ok && return 0
    sleep 0.1
  done
  say "job_submit/pacml was not ready (loaded $1 times, partitions, nodes) within 10 s of the reconfigure"
  return 1
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
