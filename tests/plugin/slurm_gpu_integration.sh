#!/bin/bash
# Integration test of job_submit/pacml and spank_pacml on a GPU cluster: the
# local Slurm 22.05 lab (slurm_cluster_lib.sh) with 8 nodes of 4 GPUs each
# (GRES gpu on fake device files) and pacml.conf's `cluster:`. pacml chooses
# k GPUs and asks Slurm for counts (plugin/README.md, "GPU cluster"): whole
# nodes for k a multiple of 4, a shared node below 4; the job sees its plan
# as PACML_* variables (salloc's shell too, as the interactive step, with
# SLURM_NTASKS=k); --pacml-deadline becomes Slurm's deadline; users'
# graph files are planned too; the test's squeue --json history replays
# through `pacml replay`; and a short soak (slurm_soak.sh --short --gpu) runs
# on a fresh cluster at the end.
#
#   tests/plugin/slurm_gpu_integration.sh [BUILD_DIR]     (default: ./build)
#
# Needs root and Debian's Slurm daemons, like slurm_integration.sh.
set -u
t_start=$(date +%s.%N)
. "$(dirname "$0")/slurm_cluster_lib.sh"
lab_init slurm-gpu-integration "${1:-}"

write_gpu_conf() { # write_gpu_conf POLICY [EXTRA]: pacml.conf for the GPU cluster (atomic)
  cat > "$LAB/etc/.pacml.conf" <<EOC
cluster: dgx-a100-4x8
policy: $1
partitions: [main]
decision_log: $LAB/log/decisions.jsonl
reservation_ttl: 0
${2:-}
EOC
  mv "$LAB/etc/.pacml.conf" "$LAB/etc/pacml.conf"
}
write_gpu_conf fixed:4
lab_enable_accounting # slurmdbd + MariaDB: sections 9 and 10 replay and join the test's own sacct history
lab_write_gpu_slurm_conf
# salloc without a command runs its shell as a step on the first node, where
# spank_pacml.so gives it the plan (plugin/README.md, "GPU cluster"); salloc
# with a command, sbatch and srun are not affected
echo "LaunchParameters=use_interactive_step" >> "$SLURM_CONF"
# That step asks slurmd for a pty (InteractiveStepOptions' default has
# --pty); a machine without ptys (a CI container without devpts) fails its
# launch ("Slurmd could not connect IO"), so there the step goes without one:
# the plan reaches it the same way (SPANK), only the terminal differs.
interactive_pty="a pty"
if ! python3 -c 'import os; os.openpty()' 2>/dev/null; then
  echo 'InteractiveStepOptions="--interactive --preserve-env $SHELL"' >> "$SLURM_CONF"
  interactive_pty="no pty (this machine cannot open one)"
fi
lab_start
say "cluster up in $(seconds_since "$t_start") s"
mkdir -p "$LAB/out" && chmod 777 "$LAB/out"

gpus_of() { # gpus_of JOBID: GPUs Slurm allocated (the IDX lists of scontrol -d), else asked for
  timeout 5 scontrol -d show job "$1" | python3 -c '
import re, sys
text = sys.stdin.read()
held = 0
for idx in re.findall(r"GRES=gpu[^ ]*\(IDX:([0-9,-]+)\)", text):
    for part in idx.split(","):
        a, _, b = part.partition("-")
        held += int(b or a) - int(a) + 1
def field(key):
    m = re.search(r"\b" + key + r"=([^ \n]+)", text)
    return m.group(1) if m else ""
def gpu(tres):
    m = re.search(r"gpu:(\d+)$", tres)
    return int(m.group(1)) if m else 0
nodes, tasks = int(field("NumNodes").split("-")[0]), int(field("NumTasks") or 0)
asked = gpu(field("TresPerNode")) * nodes or gpu(field("TresPerTask")) * tasks
print(held or asked)'
}
tres() { timeout 5 scontrol -d show job "$1" | grep -o 'GRES=[^ ]*\|TresPer[A-Za-z]*=[^ ]*' | paste -sd' '; }
run() { # run POLICY SBATCH-ARGS...: a running pacml job with that policy -> job id
  write_gpu_conf "$1"
  shift
  submit --pacml-model=resnet50 --pacml-beta=1 "$@"
}
out_of() { # out_of JOBID: the job's output once it has ended
  wait_state "$1" COMPLETED 30
  cat "$LAB/out/$1.out" 2>/dev/null
}

say "0. nodes carry their GRES"
check "n1 has Gres=gpu:4" bash -c "timeout 5 scontrol -o show node n1 | grep -q 'Gres=gpu:4'"
check "pacml loaded the GPU cluster" grep -q "pacml: loaded .*GPU cluster" "$LAB/log/slurmctld.log"

say "1. k GPUs → nodes, GRES and tasks"
j4=$(run fixed:4 --wrap 'sleep 60')
check "k=4: submitted" [ -n "$j4" ]
check "k=4: running" wait_state "$j4" RUNNING 10
check "k=4: 1 node, 4 GPUs, 4 tasks, exclusive" \
  [ "$(field "$j4" NumNodes):$(gpus_of "$j4"):$(field "$j4" NumTasks):$(field "$j4" OverSubscribe)" = 1:4:4:NO ]
gres=$(lab_gres_prefix)
check "k=4: TresPerNode=${gres}gpu:4" [ "$(field "$j4" TresPerNode)" = "${gres}gpu:4" ]
j6=$(run fixed:6 --wrap 'sleep 60')
check "k=6: running" wait_state "$j6" RUNNING 10
check "k=6: 2 nodes, 6 GPUs, 6 tasks" \
  [ "$(field "$j6" NumNodes):$(gpus_of "$j6"):$(field "$j6" NumTasks)" = 2:6:6 ]
check "k=6: one GPU per task (TresPerTask=${gres}gpu:1)" [ "$(field "$j6" TresPerTask)" = "${gres}gpu:1" ]
line=$(decision_of "$j6")
check "k=6: the decision log agrees (6 GPUs, 2 nodes)" \
  [ "$(json "$line" "['gpus']"):$(json "$line" "['node_count']")" = 6:2 ]
timeout 5 scancel "$j4" "$j6"
wait_idle
a=$(run fixed:2 --wrap 'sleep 60')
b=$(run fixed:2 --wrap 'sleep 60')
wait_state "$a" RUNNING 10
check "two k=2 jobs: both running" wait_state "$b" RUNNING 10
check "two k=2 jobs share one node ($(field "$a" NodeList), $(field "$b" NodeList))" \
  [ "$(field "$a" NodeList)" = "$(field "$b" NodeList)" ]
check "k=2: not exclusive, 2 GPUs ($(field "$a" OverSubscribe), $(tres "$a"))" [ "$(field "$a" OverSubscribe):$(gpus_of "$a")" = OK:2 ]
timeout 5 scancel "$a" "$b"
wait_idle
j=$(run requested --gpus=3 --hold --wrap true)
check "policy requested keeps the user's --gpus=3 ($(gpus_of "$j") GPUs)" [ "$(gpus_of "$j")" = 3 ]
j=$(run fixed:4 --gpus=3 --hold --wrap true)
check "another policy replaces --gpus=3 by 4 and says so" \
  bash -c "[ '$(gpus_of "$j")' = 4 ] && grep -q 'asked for 3 GPUs; policy fixed:4 gives it 4' '$LAB/err'"
timeout 5 scancel -u root

say "2. the plan inside the job: batch script, srun, salloc"
j=$(run fixed:6 -o "$LAB/out/%j.out" --wrap 'env | grep ^PACML_ | sort; srun bash -c "echo rank \$SLURM_PROCID on \$SLURMD_NODENAME gpus \$PACML_GPUS"')
o=$(out_of "$j")
printf '%s\n' "$o" | sed 's/^/    /'
check "batch: PACML_GPUS=6 PACML_NODES=2 PACML_GPUS_PER_NODE=4" \
  bash -c "printf '%s\n' \"\$1\" | grep -q '^PACML_GPUS=6$' && printf '%s\n' \"\$1\" | grep -q '^PACML_NODES=2$' && printf '%s\n' \"\$1\" | grep -q '^PACML_GPUS_PER_NODE=4$'" _ "$o"
check "batch: strategy, TP×PP×DP = 6, predicted JCT, decision" python3 - "$o" <<'EOP'
import sys
env = dict(l.split("=", 1) for l in sys.argv[1].splitlines() if l.startswith("PACML_"))
ok = env.get("PACML_STRATEGY") in ("data", "tensor", "hybrid", "pipeline")
ok &= int(env["PACML_TP_SIZE"]) * int(env["PACML_PP_SIZE"]) * int(env["PACML_DP_SIZE"]) == 6
ok &= int(env["PACML_PREDICTED_JCT"]) > 0 and env.get("PACML_DECISION", "") != ""
sys.exit(0 if ok else 1)
EOP
check "batch: srun starts 6 ranks" [ "$(printf '%s\n' "$o" | grep -c '^rank ')" = 6 ]
check "batch: the ranks are on 2 nodes" \
  [ "$(printf '%s\n' "$o" | grep '^rank ' | awk '{print $4}' | sort -u | wc -l)" = 2 ]
write_gpu_conf fixed:2
# srun makes its own allocation: its step keeps the task count srun had
# (one, or its -n), and the SPANK plugin gives the tasks the job's plan
s_out=$(timeout 30 srun --pacml-model=resnet50 --pacml-beta=1 bash -c 'echo "$SLURM_PROCID $PACML_GPUS $PACML_NODES $PACML_DECISION"' 2> "$LAB/err")
printf '%s\n' "$s_out" | sed 's/^/    srun: /'
check "srun: the task sees PACML_GPUS=2 PACML_NODES=1 PACML_DECISION (SPANK, from the job's plan)" \
  [ "$(printf '%s\n' "$s_out" | awk '$2 == 2 && $3 == 1 && $4 != ""' | wc -l)" = 1 ]
# salloc: its steps get the plan from the SPANK plugin (salloc's own shell
# runs before any step and does not)
sa_out=$(timeout 30 salloc --pacml-model=resnet50 --pacml-beta=1 srun -n 2 bash -c 'echo "$SLURM_PROCID $PACML_GPUS"' 2> "$LAB/err")
printf '%s\n' "$sa_out" | sed 's/^/    salloc: /'
check "salloc + srun -n 2: both ranks see PACML_GPUS=2" \
  [ "$(printf '%s\n' "$sa_out" | awk '$2 == 2' | wc -l)" = 2 ]
# salloc's shell (the interactive step, LaunchParameters=use_interactive_step
# above), driven as a user's terminal would be but without one: salloc reads
# the shell's line from a pipe (its srun then says "Not using a
# pseudo-terminal", which changes nothing else), so the check needs no pty,
# which a CI container may not have. The step runs salloc's $SHELL: a bare
# environment without SHELL makes srun fail with "No command given to
# execute", so it is set here. The shell's output goes to a file, and srun
# reads /dev/null (else it would take the shell's `exit` as its tasks' input).
write_gpu_conf fixed:6
cat > "$LAB/in_shell.sh" <<'EOS'
first=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
echo "shell $SLURMD_NODENAME $first ${PACML_GPUS:-unset} ${PACML_DECISION:-unset} ${SLURM_NTASKS:-unset}"
srun bash -c 'echo "rank $SLURM_PROCID $SLURMD_NODENAME $PACML_GPUS"'
EOS
rm -f "$LAB/out/shell.txt"
printf 'bash %s > %s 2>&1 < /dev/null; exit\n' "$LAB/in_shell.sh" "$LAB/out/shell.txt" |
  SHELL=/bin/bash timeout 40 salloc --pacml-model=resnet50 --pacml-beta=1 > "$LAB/out/salloc.txt" 2>&1
sh_out=$(cat "$LAB/out/shell.txt" 2>/dev/null)
printf '%s\n' "$sh_out" | sed 's/^/    salloc shell: /'
# what salloc said, when the shell wrote nothing (CI's failure report shows "why:" lines)
[ -n "$sh_out" ] || sed 's/^/    why: salloc (its shell wrote nothing): /' "$LAB/out/salloc.txt"
printf '    salloc shell: the interactive step has %s\n' "$interactive_pty"
# The step runs on the allocation's first node: n1 on an idle lab, another
# one where the earlier jobs' nodes are still completing (seen in CI).
check "salloc's shell (interactive step, on the job's first node) sees PACML_GPUS=6, PACML_DECISION and SLURM_NTASKS=6 ($(printf '%s\n' "$sh_out" | grep '^shell'))" \
  [ "$(printf '%s\n' "$sh_out" | awk '$1 == "shell" && $2 == $3 && $4 == 6 && $5 != "unset" && $6 == 6' | wc -l)" = 1 ]
check "   srun without -n in it starts 6 ranks that see PACML_GPUS=6, on 2 nodes" \
  [ "$(printf '%s\n' "$sh_out" | awk '$1 == "rank" && $4 == 6' | wc -l):$(printf '%s\n' "$sh_out" | awk '$1 == "rank" {print $3}' | sort -u | wc -l)" = 6:2 ]
# Without a batch script or that shell (plugin/README.md, "Without a batch
# script"): salloc's command runs on the submit host, outside any step, and
# srun fixes its task count before pacml decides; the README's recipe
cat > "$LAB/in_salloc.sh" <<'EOS'
echo "shell ${PACML_GPUS:-unset}"
n=$(scontrol show job "$SLURM_JOB_ID" | sed -n 's/.*NumTasks=\([0-9]*\).*/\1/p')
srun -n "$n" bash -c 'echo "rank $SLURM_PROCID $PACML_GPUS"'
EOS
sa_out=$(timeout 30 salloc --pacml-model=resnet50 --pacml-beta=1 bash "$LAB/in_salloc.sh" 2> "$LAB/err")
check "salloc with a command (6 GPUs): the command has no PACML_* ($(printf '%s\n' "$sa_out" | grep '^shell'))" \
  [ "$(printf '%s\n' "$sa_out" | grep -c '^shell unset$')" = 1 ]
check "   srun -n <the job's NumTasks> in it starts 6 ranks that see PACML_GPUS=6" \
  [ "$(printf '%s\n' "$sa_out" | awk '/^rank / && $3 == 6' | wc -l)" = 6 ]
s_out=$(timeout 30 srun --pacml-model=resnet50 --pacml-beta=1 bash -c 'echo "rank $SLURM_PROCID $PACML_GPUS"' 2> "$LAB/err")
check "a standalone srun without -n starts one rank per node (2 of 6), each sees PACML_GPUS=6" \
  [ "$(printf '%s\n' "$s_out" | awk '/^rank / && $3 == 6' | wc -l)" = 2 ]
# srun takes no task count from the allocation (Slurm's srun_job.c,
# _set_ntasks): not even from a job whose NumTasks and tasks per node are k
write_gpu_conf fixed:4
s_out=$(timeout 30 srun --pacml-model=resnet50 --pacml-beta=1 bash -c 'echo "rank $SLURM_PROCID $SLURM_JOB_ID"' 2> "$LAB/err")
sj=$(printf '%s\n' "$s_out" | awk '/^rank / {print $3; exit}')
check "   k=4 on one node: 1 rank, though the job has NumTasks=4 and 4 tasks per node ($(field "$sj" NumTasks), $(field "$sj" NtasksPerN:B:S:C))" \
  [ "$(printf '%s\n' "$s_out" | grep -c '^rank '):$(field "$sj" NumTasks):$(field "$sj" NtasksPerN:B:S:C | cut -d: -f1)" = 1:4:4 ]
j=$(PACML_DRY_RUN=1 run fixed:6 -o "$LAB/out/%j.out" "$src/contrib/slurm/examples/torchrun.sbatch" train.py)
o=$(out_of "$j")
printf '%s\n' "$o" | sed 's/^/    /'
check "torchrun example: the launch line it would run" \
  bash -c "printf '%s\n' \"\$1\" | grep -q -- 'torchrun --nnodes=2 --nproc_per_node=<the node.s tasks> .* train.py'" _ "$o"
# The example for real: torchrun starts a DDP job (CPU, gloo) whose world is
# PACML_GPUS, each node running its own share of ranks.
wait_ended() { # wait_ended JOBID SECONDS: until the job has left the queue and stopped running
  local state
  for _ in $(seq 1 $(($2 * 10))); do
    state=$(field "$1" JobState)
    case $state in PENDING | CONFIGURING | RUNNING | COMPLETING | "") sleep 0.1 ;; *) return 0 ;; esac
  done
}
torchrun_real() { # torchrun_real POLICY GPUS "SHARES": one plan, run to completion
  local j o ranks
  # PET_REDIRECTS/PET_TEE (torchrun's --redirects/--tee): Debian 12's torch
  # 1.13 under Python 3.11 cannot map their default "0" (Std.NONE is not
  # among an IntFlag's members there) and fails before starting a worker;
  # 1 tees each rank's stdout, prefixed "[default<rank>]:".
  j=$(PET_REDIRECTS=1 PET_TEE=1 run "$1" -o "$LAB/out/%j.out" \
    "$src/contrib/slurm/examples/torchrun.sbatch" "$src/tests/plugin/ddp_smoke.py")
  wait_ended "$j" 180
  check "torchrun example, $2 GPUs: the job completes ($(field "$j" JobState))" [ "$(field "$j" JobState)" = COMPLETED ]
  o=$(cat "$LAB/out/$j.out" 2>/dev/null)
  printf '%s\n' "$o" | grep -v 'ddp rank ' | tail -n 5 | sed 's/^/    /'
  ranks=$(printf '%s\n' "$o" | sed -n 's/^\(\[[^]]*\]:\)\{0,1\}\(ddp rank \)/\2/p')
  check "   world size $2 = PACML_GPUS on every rank, all ranks in the all-reduce ($(printf '%s\n' "$ranks" | grep -c .) ranks)" \
    [ "$(printf '%s\n' "$ranks" | awk -v w="$2" '$5 == w && $11 == w * (w - 1) / 2' | wc -l)" = "$2" ]
  check "   each node runs its own share: $3 ($(printf '%s\n' "$ranks" | awk '{print $9}' | sort | uniq -c | awk '{print $1}' | sort -n | paste -sd' ' -))" \
    [ "$(printf '%s\n' "$ranks" | awk '{print $9}' | sort | uniq -c | awk '{print $1}' | sort -n | paste -sd' ' -)" = "$3" ]
}
if command -v torchrun >/dev/null && /usr/bin/python3 -c 'import torch.distributed' 2>/dev/null; then
  torchrun_real fixed:4 4 "4"
  torchrun_real fixed:6 6 "2 4"
  timeout 5 scancel -u root
else
  echo "skip - the torchrun example's real run: no torchrun/python3-torch here (apt-get install python3-torch)"
fi
wait_idle

say "3. min_feasible with the physical model, --time and deadlines"
write_gpu_conf min_feasible
# 1 GPU would take 4.8 h (resnet50 at batch 256 on an A100): min_feasible
# takes the fewest GPUs that make 4 h
j=$(submit --pacml-model=resnet50 --pacml-steps=200000 --pacml-deadline=4:00:00 --hold --wrap true)
line=$(decision_of "$j")
k=$(json "$line" "['gpus']")
jct=$(json "$line" "['jct']")
say "   resnet50, 200000 steps, deadline 4 h -> $k GPUs, predicted $jct s"
check "min_feasible: more than one GPU, predicted within 4 h" python3 -c "import sys; sys.exit(0 if $k > 1 and $jct <= 14400 else 1)"
check "min_feasible: Slurm has the job at k=$k GPUs ($(tres "$j"))" [ "$(gpus_of "$j")" = "$k" ]
dl=$(field "$j" Deadline)
check "--pacml-deadline=4:00:00 is Slurm's Deadline ($dl)" \
  python3 -c "import sys,time; t=time.mktime(time.strptime(sys.argv[1], '%Y-%m-%dT%H:%M:%S')); sys.exit(0 if abs(t - time.time() - 14400) < 120 else 1)" "$dl"
# Slurm ends a pending job whose limit cannot end by its deadline at once:
# pacml gives it a --time-min so Slurm shortens it instead
# (--pacml-steps: --time-min comes only from a length the user stated)
j=$(submit --pacml-model=resnet50 --pacml-steps=50 --pacml-deadline=1:00:00 --time=2:00:00 --wrap 'sleep 30')
check "--time=2:00:00 past --pacml-deadline=1:00:00: the user is told" grep -q "runs past --pacml-deadline" "$LAB/err"
check "   and the job runs (not killed by Slurm's deadline rule): $(field "$j" JobState)" wait_state "$j" RUNNING 10
check "   with TimeMin=00:02:00 ($(field "$j" TimeLimit) in force)" [ "$(field "$j" TimeMin)" = 00:02:00 ]
j=$(submit --pacml-model=resnet50 --pacml-deadline=1:00:00 --wrap 'sleep 30')
check "--pacml-deadline without --time (partition default UNLIMITED) runs" wait_state "$j" RUNNING 10
timeout 5 scancel -u root
j=$(submit --pacml-model=resnet50 --time=45 --hold --wrap true)
check "--time=45 is the requirement and the time limit (00:45:00)" [ "$(field "$j" TimeLimit)" = 00:45:00 ]
timeout 5 scancel -u root

say "3c. pacml.conf's correction: (doc/SLURM.md §11): 1.3x slower steps, more GPUs"
corr=$LAB/etc/pacml-correction.yaml
write_correction() { # write_correction VERSION COMPUTE (atomic, as the cron recipe's mv)
  printf 'pacml_correction: 1\nversion: %s\nentries:\n  - {model: resnet50, compute: %s}\n' \
    "$1" "$2" > "$corr.new" && mv "$corr.new" "$corr"
}
write_correction lab-1.3x 1.3
write_gpu_conf min_feasible "correction: $corr"
j=$(submit --pacml-model=resnet50 --pacml-steps=200000 --pacml-deadline=4:00:00 --hold --wrap true)
line=$(decision_of "$j")
kc=$(json "$line" "['gpus']")
say "   the same job with resnet50 1.3x slower -> $kc GPUs (uncorrected: $k)"
check "correction: the decision log names it (lab-1.3x) with the corrected step beside the model's" \
  python3 -c "import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if d['correction'] == 'lab-1.3x' and abs(d['corrected_step_time'] - 1.3 * d['step_time']) < 1e-9 * d['step_time'] else 1)" "$line"
check "correction: more GPUs than uncorrected ($kc > $k), Slurm has them" \
  bash -c "[ $kc -gt $k ] && [ \"\$1\" = $kc ]" _ "$(gpus_of "$j")"
check "correction: slurmctld logged it loaded" grep -q "pacml: loaded .*correction lab-1.3x" "$LAB/log/slurmctld.log"
write_correction lab-bad 500
j=$(submit --pacml-model=resnet50 --pacml-steps=200000 --pacml-deadline=4:00:00 --hold --wrap true)
check "a bad correction file: slurmctld logs it at file:line" grep -q "pacml-correction.yaml:4: .*compute" "$LAB/log/slurmctld.log"
check "   and keeps deciding with the last good one (lab-1.3x)" \
  python3 -c "import json,sys; sys.exit(0 if json.loads(sys.argv[1])['correction'] == 'lab-1.3x' else 1)" "$(decision_of "$j")"
timeout 5 scancel -u root

say "3b. the learned GPU policy (pacml:default, installed by make install) decides inside slurmctld"
# What a site does: `make install` puts the shipped models in
# PREFIX/share/pacml/models, where the plugin looks for pacml:NAME after
# $PACML_MODELS_DIR; slurmctld here runs without that variable.
models_dir=$(make -s -C "$build" print-modelsdir)
make -s -C "$build" install-modelsDATA >/dev/null || die "make install-modelsDATA failed"
check "make install put default.pacw in $models_dir" [ -f "$models_dir/default.pacw" ]
no_models_env() { ! tr '\0' '\n' < "/proc/$(lab_ctld_pid)/environ" | grep -q '^PACML_MODELS_DIR='; }
check "slurmctld runs without PACML_MODELS_DIR" no_models_env
write_gpu_conf "pacml:default"
j=$(submit --pacml-model=resnet50 --pacml-steps=20000 --pacml-deadline=1:00:00 --hold --wrap true)
line=$(decision_of "$j")
k=$(json "$line" "['gpus']")
jct=$(json "$line" "['jct']")
say "   resnet50, 20000 steps, deadline 1 h -> $k GPUs, predicted $jct s"
check "pacml:default: at least one GPU, predicted within 1 h" \
  python3 -c "import sys; sys.exit(0 if $k >= 1 and $jct <= 3600 else 1)"
check "pacml:default: Slurm has the job at k=$k GPUs ($(tres "$j"))" [ "$(gpus_of "$j")" = "$k" ]
timeout 5 scancel -u root
# A policy that turns the job away (capped:X, or the learned one for a job
# that would cost the jobs after it too much) rejects it with its cost.
write_gpu_conf capped:0.0001 "on_block: queue"
j=$(submit --pacml-model=resnet50 --pacml-steps=20000 --pacml-deadline=1:00:00 --wrap true)
check "capped:0.0001 turns it away: sbatch refused" [ -z "$j" ]
check "   and says what its cheapest start would cost" grep -q "turned it away.*GPU-hours" "$LAB/err"

say "4. users' -N, -w and --exclude"
j=$(run fixed:6 -N 1 --wrap true)
check "-N 1 with 6 GPUs on 4-GPU nodes: refused" [ -z "$j" ]
check "   the message names -N" grep -q "within -N 1" "$LAB/err"
j=$(run fixed:4 --exclude=n[1-7] --wrap 'sleep 30')
wait_state "$j" RUNNING 10
check "--exclude=n[1-7]: runs on n8" [ "$(field "$j" NodeList)" = n8 ]
timeout 5 scancel "$j"
wait_idle
j=$(run fixed:4 -w n5 --wrap 'sleep 30')
wait_state "$j" RUNNING 10
check "-w n5: runs on n5" [ "$(field "$j" NodeList)" = n5 ]
timeout 5 scancel -u root
wait_idle

say "5. a queued job asks for counts: one drained node does not strand it"
write_gpu_conf fixed:4 "on_block: queue"
declare -A on=()
for _ in 1 2 3 4 5 6 7 8; do
  r=$(submit --pacml-model=resnet50 --pacml-beta=1 --wrap 'sleep 120')
  wait_state "$r" RUNNING 10 && on[$(field "$r" NodeList)]=$r
done
check "8 whole-node jobs fill the 8 nodes" [ "${#on[@]}" = 8 ]
q=$(submit --pacml-model=resnet50 --pacml-beta=1 --wrap 'sleep 5')
check "a ninth is accepted and waits ($(field "$q" JobState), $(field "$q" Reason))" [ "$(field "$q" JobState)" = PENDING ]
timeout 5 scontrol update NodeName=n1 State=DRAIN Reason=pacml-test
timeout 5 scancel "${on[n1]:-0}" "${on[n2]:-0}"
check "n1 drained, n2 freed: the queued job starts on n2" wait_state "$q" RUNNING 20
check "   on n2 ($(field "$q" NodeList))" [ "$(field "$q" NodeList)" = n2 ]
timeout 5 scancel -u root
timeout 5 scontrol update NodeName=n1 State=RESUME
check "slurmctld answers" ping_ok

say "6. graph files on the GPU cluster, read by the SPANK plugin as the user"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups env SLURM_CONF="$SLURM_CONF" "$@"; }
check "users' files are never read by slurmctld (logged at load)" \
  grep -q "users' graph files are read by the SPANK plugin, never by slurmctld" "$LAB/log/slurmctld.log"
write_gpu_conf min_feasible
cp "$src/contrib/graphs/example-cnn.yaml" "$LAB/user/cnn.yaml" && chmod 644 "$LAB/user/cnn.yaml"
cp "$LAB/user/cnn.yaml" "$LAB/secret.yaml" && chmod 600 "$LAB/secret.yaml"
g=$(cd "$LAB/user" && as_nobody timeout 20 sbatch --parsable -o /dev/null --chdir=/tmp \
  --pacml-graph=cnn.yaml --pacml-steps=200000 --pacml-deadline=2:00:00 --wrap true 2> "$LAB/err")
check "nobody's graph file, relative to the submit directory, is decided ($(head -c 160 "$LAB/err"))" [ -n "$g" ]
line=$(decision_of "$g")
k=$(json "$line" "['gpus']")
say "   example-cnn, 200000 steps, deadline 2 h -> $k GPUs, predicted $(json "$line" "['jct']") s"
check "   the decision names the file; Slurm has the job at its $k GPUs ($(tres "$g"))" \
  [ "$(json "$line" "['graph']"):$(gpus_of "$g")" = "$LAB/user/cnn.yaml:$k" ]
check "   the job runs to completion" wait_state "$g" COMPLETED 30
j=$(as_nobody timeout 20 sbatch --parsable -o /dev/null --chdir=/tmp \
  --pacml-graph="$LAB/secret.yaml" --pacml-beta=1 --wrap true 2> "$LAB/err")
check "nobody pointing --pacml-graph at a root-only file is refused ($(head -c 160 "$LAB/err"))" \
  grep -q "secret.yaml: cannot read: Permission denied" "$LAB/err"
lat=()
for _ in 1 2 3 4 5 6 7 8 9 10; do
  j=$(cd "$LAB/user" && as_nobody timeout 20 sbatch --parsable --hold -o /dev/null --chdir=/tmp \
    --pacml-graph=cnn.yaml --pacml-beta=1 --wrap true 2> /dev/null)
  [ -n "$j" ] && lat+=("$(decision_of "$j" | python3 -c 'import json, sys; print(json.loads(sys.stdin.read())["latency_ms"])')")
done
say "   the known graph again, 10 times as nobody: decision latency inside slurmctld ${lat[*]} ms"
check "   all 10 decided, within 50 ms each (a gross bound: the machine may be loaded)" \
  python3 -c "import sys; v = [float(x) for x in sys.argv[1:]]; sys.exit(0 if len(v) == 10 and max(v) <= 50 else 1)" "${lat[@]}"
timeout 5 scancel -u nobody

say "7. the test's own history replays (squeue --json -> pacml replay)"
sleep 1 # the decision log's last job ids
timeout 10 squeue --json -t all > "$LAB/squeue.json" 2> /dev/null
# the GPU count each job's history gives against the count pacml decided:
# Slurm keeps pacml's request as GRES per node (k a multiple of G) or per
# task (tres_per_node, tres_per_task); without slurmdbd its TRES strings
# count no GPUs
python3 - "$LAB/squeue.json" "$LAB/log/decisions.jsonl" > "$LAB/history" <<'EOP'
import json, re, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
decided = {}
for line in open(sys.argv[2]):
    d = json.loads(line)
    if d.get("job_id") is not None and "gpus" in d: decided[d["job_id"]] = d["gpus"]
def number(v):
    return v.get("number") if isinstance(v, dict) else v
def history_gpus(j):
    for key, times in (("tres_per_job", 1), ("tres_per_node", number(j.get("node_count"))),
                       ("tres_per_task", number(j.get("tasks")))):
        m = re.search(r"gpu:(\d+)$", j.get(key) or "")
        if m and times: return int(m.group(1)) * int(times)
    return None
pacml = [j for j in jobs if "pacml:" in (j.get("comment") or "")]
same = [j for j in pacml if decided.get(j["job_id"]) == history_gpus(j)]
for j in pacml:
    if j not in same:
        fields = {k: j.get(k) for k in ("node_count", "tasks", "tres_per_job", "tres_per_node", "tres_per_task", "tres_req_str")}
        print(f"mismatch: job {j['job_id']} decided {decided.get(j['job_id'])}, history {history_gpus(j)}: {fields}")
print(f"jobs {len(jobs)} pacml {len(pacml)} same_gpus {len(same)}")
EOP
read -r _ n_jobs _ n_pacml _ n_same < <(tail -n 1 "$LAB/history")
say "   $(tail -n 1 "$LAB/history")"
grep '^mismatch' "$LAB/history" | head -5 | sed 's/^/    /'
check "every job of the test is a pacml job with its request in its comment ($n_pacml of $n_jobs)" \
  [ "$n_pacml" -ge 25 -a "$n_pacml" = "$n_jobs" ]
check "   and its history holds the GPU count pacml decided, as GRES per node or per task ($n_same of $n_pacml)" \
  [ "$n_same" = "$n_pacml" ]
"${pacml_env[@]}" "$pacml" replay "$LAB/squeue.json" --format squeue-json --policies min_feasible \
  --no-plots --json > "$LAB/replay.json" 2> "$LAB/replay.err"
replayed=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["trace"]["records"], r["trace"]["skipped"], r["mapping"]["jobs"], r["mapping"]["skipped"])' "$LAB/replay.json" 2>/dev/null)
say "   pacml replay: records, skipped lines, jobs replayed, jobs skipped: ${replayed:-none ($(head -c 200 "$LAB/replay.err"))}"
check "pacml replay --format squeue-json replays all $n_pacml pacml jobs, none skipped" \
  [ "$replayed" = "$n_jobs 0 $n_pacml 0" ]

say "7b. SPANK asks slurmctld for a plan (one RPC) only in pacml jobs' steps"
# after the history (section 7), in which every job is a pacml job
plan_rpcs() { cat "$LAB"/log/slurmd-*.log | grep -c "pacml: job $1: loading the job's plan"; }
plain=$(timeout 30 srun -N 1 bash -c 'echo $SLURM_JOB_ID' 2> "$LAB/err")
plain_batch=$(submit -N 1 --wrap 'srun true; srun true')
pacml_srun=$(timeout 30 srun --pacml-model=resnet50 --pacml-beta=1 bash -c 'echo $SLURM_JOB_ID' 2> "$LAB/err" | head -1)
wait_idle
check "a pacml srun's step asks for its plan ($(plan_rpcs "$pacml_srun") RPCs, job $pacml_srun)" \
  [ "$(plan_rpcs "${pacml_srun:-none}")" -ge 1 ]
check "a plain srun's step does not (job $plain: $(plan_rpcs "$plain") RPCs)" \
  test -n "$plain" -a "$(plan_rpcs "$plain")" = 0
check "nor a plain batch job's steps (job $plain_batch, $(field "$plain_batch" JobState): $(plan_rpcs "$plain_batch") RPCs)" \
  test -n "$plain_batch" -a "$(plan_rpcs "$plain_batch")" = 0 -a "$(field "$plain_batch" JobState)" = COMPLETED

say "7c. a job reports the step time it measured (\$PACML_STEP_REPORT, doc/PHYSICAL.md §11.1)"
# make install puts pacml-report-steps in BINDIR, where the plan's
# PACML_STEP_REPORT points; nobody's job calls it twice (the second report
# replaces the first) and sections 9 and 10 read it back from sacct.
make -s -C "$build" install-dist_binSCRIPTS >/dev/null || die "make install-dist_binSCRIPTS failed"
write_gpu_conf fixed:1
reporter=$(as_nobody timeout 20 sbatch --parsable -o "/tmp/pacml-report-%j.out" --chdir=/tmp \
  --pacml-model=resnet50 --pacml-steps=40 --pacml-beta=1 \
  --wrap '"$PACML_STEP_REPORT" 20 0.01 && "$PACML_STEP_REPORT" 40 0.02' 2> "$LAB/err")
wait_ended "$reporter" 30
reported=$(timeout 5 squeue --noheader --states=all --jobs="$reporter" --format=%k)
say "   job $reporter ($(field "$reporter" JobState)): Comment '$reported'"
[ -n "$reporter" ] && sed 's/^/    job output: /' "/tmp/pacml-report-$reporter.out" 2>/dev/null | head -3
check "nobody's job ran \$PACML_STEP_REPORT (scontrol update of its own job) and completed" \
  [ "$(field "$reporter" JobState)" = COMPLETED ]
check "   its Comment holds the last report once, after the request job_submit wrote there" \
  bash -c '[[ "$1" == "pacml:model=resnet50,beta=1,steps=40 pacml-measured:steps=40,step_time=0.02" ]]' _ "$reported"
rm -f "/tmp/pacml-report-$reporter.out"

say "8. a short soak on a fresh GPU cluster (slurm_soak.sh --short --gpu)"
lab_stop # one cluster at a time on the machine
bash "$src/tests/plugin/slurm_soak.sh" --short --gpu "$build" > "$LAB/soak.out" 2>&1
soak_rc=$?
grep -E 'jobs submitted|decisions|rejections|unaccounted|PROBLEM|decision latency|by request|sbatch end|slurmctld RSS|passed, ' \
  "$LAB/soak.out" | sed 's/^ */    /'
check "short soak: every submission accounted for; RSS growth and decision p99 within bounds" [ "$soak_rc" = 0 ]

say "9. the test's own accounting replays (sacct -P and --json -> pacml replay --format sacct)"
# slurmdbd and MariaDB outlive section 8's lab_stop; the jobs all ended there.
# sacct -P asks for exactly the columns pacml's sacct reader reads
# (sim/trace/sacct_reader.cpp; ReqTRES gives a job that never started its GPUs).
sacct_columns=JobID,Submit,Start,End,NNodes,AllocTRES,ReqTRES,Timelimit,State,Comment
# Every state: without -s, sacct lists only jobs eligible in the window, and
# a job held and cancelled (section 6's nobody jobs) never was.
sacct_since=$(date -d "@${t_start%.*}" +%Y-%m-%dT%H:%M:%S)
sacct_window=(-a -X -S "$sacct_since" -E now -s PD,R,CA,CD,F,TO,NF,OOM,PR,BF,DL,RQ,RS,RV,S)
timeout 30 sacct "${sacct_window[@]}" -P --format="$sacct_columns" \
  > "$LAB/sacct.txt" 2> "$LAB/sacct.err" || bad "sacct -P failed: $(head -c 300 "$LAB/sacct.err")"
# sacct --json: Slurm 22.05 has it (openapi/dbv0.0.38 and serializer/json are
# in Debian's slurm-wlm-basic-plugins); pacml's sacct reader reads both
timeout 30 sacct "${sacct_window[@]}" --json \
  > "$LAB/sacct.json" 2> "$LAB/sacct-json.err" || bad "sacct --json failed: $(head -c 300 "$LAB/sacct-json.err")"
say "   sacct -P: $(($(wc -l < "$LAB/sacct.txt") - 1)) jobs; sacct --json: $(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["jobs"]))' "$LAB/sacct.json" 2>&1 | tail -1) jobs"

# replay_sacct FILE TAG: pacml replay --format sacct, each job on the GPUs its
# accounting gives (policy requested), its jobs in $LAB/TAG-jobs.csv; the
# plain jobs of section 7b name no model: skipped (and counted)
replay_sacct() {
  "${pacml_env[@]}" "$pacml" replay "$1" --format sacct --cluster dgx-a100-4x8 --unknown-model skip \
    --policies requested --no-plots --json --jobs-csv "$LAB/$2-jobs.csv" \
    > "$LAB/$2-replay.json" 2> "$LAB/$2-replay.err"
  local rc=$?
  say "   pacml replay $(basename "$1") --format sacct (exit $rc): $(python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print("records", r["trace"]["records"], "skipped lines", r["trace"]["skipped"], "jobs replayed", r["mapping"]["jobs"], "skipped", r["mapping"]["skipped"])' "$LAB/$2-replay.json" 2>/dev/null || head -c 300 "$LAB/$2-replay.err")"
  return $rc
}
# compare_gpus JOBS_CSV [SKEW] -> "DECIDED REPLAYED SAME": the pacml jobs of the
# decision log (with a job id), how many of them the replay has, and how many
# on the GPU count pacml decided; SKEW is added to every decided count, to
# show that the comparison can fail. Mismatches on stderr.
compare_gpus() {
  python3 - "$LAB/log/decisions.jsonl" "$1" "${2:-0}" <<'EOP'
import csv, json, sys
log, jobs_csv, skew = sys.argv[1], sys.argv[2], int(sys.argv[3])
decided = {}
for line in open(log):
    d = json.loads(line)
    if d.get("job_id") is not None and "gpus" in d: decided[str(d["job_id"])] = d["gpus"] + skew
replayed = {r["id"]: int(r["requested"]) for r in csv.DictReader(open(jobs_csv)) if r["policy"] == "requested"}
got = [i for i in decided if i in replayed]
same = [i for i in got if replayed[i] == decided[i]]
for i in sorted(decided, key=int):
    if replayed.get(i) != decided[i]:
        print(f"mismatch: job {i} decided {decided[i]} GPUs, replayed {replayed.get(i, 'not at all')}", file=sys.stderr)
print(len(decided), len(got), len(same))
EOP
}
# check_sacct_replay FILE LABEL: the checks for one of sacct's outputs
check_sacct_replay() {
  local tag rc n_decided n_replayed n_same n_skewed
  tag=$(basename "$1" | tr . -)
  replay_sacct "$1" "$tag"
  rc=$?
  read -r n_decided n_replayed n_same < <(compare_gpus "$LAB/$tag-jobs.csv" 2> "$LAB/$tag-compare.err" || echo 0 0 0)
  sed 's/^/    /' "$LAB/$tag-compare.err" | head -5
  say "   pacml jobs in the decision log: $n_decided; replayed from $2: $n_replayed; on the decided GPU count: $n_same"
  check "pacml replay --format sacct reads $2 (exit $rc)" [ "$rc" = 0 ]
  check "   ≥ 95 % of the test's $n_decided pacml jobs are replayed ($n_replayed)" \
    [ "$n_decided" -ge 25 -a $((n_replayed * 100)) -ge $((n_decided * 95)) ]
  check "   each replayed job on the GPU count pacml decided ($n_same of $n_replayed)" \
    [ "$n_replayed" -gt 0 -a "$n_same" = "$n_replayed" ]
  read -r _ _ n_skewed < <(compare_gpus "$LAB/$tag-jobs.csv" 1 2> /dev/null || echo 0 0 x)
  check "   the comparison fails when the decided counts are off by one ($n_skewed of $n_replayed would match)" \
    [ "$n_skewed" = 0 ]
}
check_sacct_replay "$LAB/sacct.txt" "sacct -P"
check_sacct_replay "$LAB/sacct.json" "sacct --json"

say "10. the history (doc/PHYSICAL.md §11): the decision log joined with the lab's own accounting, a correction fitted from it"
timeout 30 sacct "${sacct_window[@]}" -P --format=JobID,State,Elapsed,Start,Comment \
  > "$LAB/sacct-history.txt" 2> "$LAB/sacct-history.err" || bad "sacct -P (history) failed: $(head -c 300 "$LAB/sacct-history.err")"
# join_history SACCT TAG: pacml history join, its report in $LAB/TAG.err -> joined count
join_history() {
  "${pacml_env[@]}" "$pacml" history join --log "$LAB/log/decisions.jsonl" --sacct "$1" \
    --out "$LAB/$2.csv" 2> "$LAB/$2.err" || { sed 's/^/    /' "$LAB/$2.err" | tail -5; echo -1; return; }
  sed -n 's/^joined: \([0-9]*\) jobs$/\1/p' "$LAB/$2.err"
}
n_log=$(python3 -c 'import json, sys; print(sum(1 for l in open(sys.argv[1]) if json.loads(l).get("job_id") is not None and "step_time" in json.loads(l)))' "$LAB/log/decisions.jsonl")
n_joined=$(join_history "$LAB/sacct-history.txt" joined)
n_joined_json=$(join_history "$LAB/sacct.json" joined-json)
sed 's/^/    /' "$LAB/joined.err"
check "history join: ≥ 95 % of the $n_log decisions with a job id and a predicted step joined with sacct -P ($n_joined)" \
  [ "$n_log" -ge 25 -a $((n_joined * 100)) -ge $((n_log * 95)) ]
check "   and the same jobs from sacct --json ($n_joined_json)" cmp -s "$LAB/joined.csv" "$LAB/joined-json.csv"
# The lab's jobs run `true` or sleep, not their model's steps: a correction
# from them says only that the fit runs on real accounting, not how fast
# anything is. The default evidence rule refuses them when fewer than 20
# completed; --min-jobs 1 fits whatever completed.
"${pacml_env[@]}" "$pacml" calibrate --history "$LAB/joined.csv" --out "$LAB/correction-strict.yaml" \
  > "$LAB/calibrate-strict.out" 2>&1
rc_strict=$?
n_completed=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "state") c = i; next } $c == "COMPLETED"' "$LAB/joined.csv" | wc -l)
say "   completed pacml jobs in the join: $n_completed; calibrate with the default rule: exit $rc_strict"
if [ "$n_completed" -lt 20 ]; then
  check "calibrate --history refuses $n_completed completed jobs (exit 2, no file)" \
    bash -c "[ $rc_strict = 2 ] && [ ! -e '$LAB/correction-strict.yaml' ]"
else
  check "calibrate --history fits $n_completed completed jobs (exit 0)" [ "$rc_strict" = 0 ]
fi
"${pacml_env[@]}" "$pacml" calibrate --history "$LAB/joined.csv" --min-jobs 1 --out "$LAB/correction.yaml" \
  > "$LAB/calibrate.out" 2>&1
rc=$?
tail -n 4 "$LAB/calibrate.out" | sed 's/^/    /'
check "calibrate --history --min-jobs 1 writes a correction file (exit $rc)" \
  bash -c "[ $rc = 0 ] && grep -q '^pacml_correction: 1' '$LAB/correction.yaml'"
# Section 7c's job: its own report, through sacct, in the join and the fit
reported_row=$(awk -F, -v j="$reporter" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  $c["job_id"] == j { print $c["state"], $c["measured_steps"], $c["measured_step_time"] }' "$LAB/joined.csv")
check "job $reporter's report reaches the join through sacct -P (state, steps, step time: $reported_row)" \
  [ "$reported_row" = "COMPLETED 40 0.02" ]
check "   and the fit counts it as timed by the job ($(grep '^usable:' "$LAB/calibrate.out"))" \
  grep -q '^usable: [0-9]* jobs (1 timed by the job itself' "$LAB/calibrate.out"

t_end=$(date +%s.%N)
say "$pass passed, $fail failed in $(python3 -c "print(round($t_end - $t_start, 1))") s"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
