#!/bin/bash
# Soak test of job_submit/pacml on the local 32-node Slurm cluster
# (slurm_cluster_lib.sh): 1,000 sbatch submissions through the real plugin,
# mixed valid (zoo models, graph files, β and deadlines, some run for real)
# and invalid (unknown model, negative deadline, malformed graph, β > 1, …),
# with a pacml.conf policy switch and a `scontrol reconfigure` that changes
# SchedulerParameters midway. Checks that every submission got a job id with
# a pacml decision annotation (or, without pacml options, passed through) or
# a clear rejection message; that slurmctld answered throughout; and that its
# resident memory did not grow beyond a bound. Prints jobs, decisions,
# rejections by reason, slurmctld RSS growth and decision latency (p50/p99,
# from the plugin's decision log, and end to end per sbatch). pacml.conf has
# the default profile, physical: GPU counts on the paper's cluster of
# topology 4x4x2, whose nodes show no GPU GRES (plugin/README.md, "GPU
# cluster"); the paper simulator's RAMP path (profile reference) is soaked
# through the dlopen'd plugin in shim_test.cpp.
#
#   tests/plugin/slurm_soak.sh [--control] [--short] [--gpu] [BUILD_DIR]   (default: ./build)
#   env: PACML_SOAK_JOBS (1000; 200 --short), PACML_SOAK_WARMUP (100; 20 --short),
#        PACML_SOAK_RSS_MB (32), PACML_SOAK_P99_MS (50: decision latency p99 bound),
#        PACML_SOAK_CONTROL (0; 1 is the same as --control), PACML_SOAK_GPU (0; 1 = --gpu)
#
# --gpu runs the same soak on the GPU cluster (8 nodes of 4 GPUs, GRES;
# lab_write_gpu_slurm_conf) with pacml.conf's `cluster:`: pacml decides k GPUs
# with the physical model, for zoo models and graph files alike.
#
# --short (slurm_gpu_integration.sh runs `--short --gpu`, about a minute):
# 200 submissions and no wait for Slurm's once-a-minute purge, so its RSS
# growth also counts the cancelled jobs' records still in the table (a few
# MB); its bounds are gross ones, so that a loaded machine does not fail it.
#
# --control (PACML_SOAK_CONTROL=1) is the baseline for the RSS figures: the
# same cluster, the same submission sequence, the pacml.conf change and the
# reconfigure, but slurm.conf has no JobSubmitPlugins line, so slurmctld runs
# without pacml (sbatch still loads spank_pacml, whose syntax checks reject
# β > 1 and negative --pacml-deadline at the command line as before; every
# other submission is accepted). The checks that need the plugin (decisions,
# rejections by reason, policies, decision latency) are skipped; the RSS
# sampling, pings and liveness checks stay. Compare its RSS series with a
# normal run's to see what slurmctld grows by on its own.
#
# Most jobs are submitted held (--hold) and cancelled in batches, so the
# cluster never fills; every 10th valid job runs (`true`) for real. The job
# table is purged (MinJobAge=2) so that the RSS comparison is between two
# empty job tables: after the warm-up and at the end. Slurm purges once a
# minute, so the script waits for that twice; it takes about 3 minutes.
set -u
t_start=$(date +%s.%N)
control=${PACML_SOAK_CONTROL:-0}
gpu=${PACML_SOAK_GPU:-0}
short=0
[ "${1:-}" = --control ] && { control=1; shift; }
[ "${1:-}" = --short ] && { short=1; shift; }
[ "${1:-}" = --gpu ] && { gpu=1; shift; }
[ "$control" = 1 ] || control=0
[ "$gpu" = 1 ] || gpu=0
. "$(dirname "$0")/slurm_cluster_lib.sh"
name=slurm-soak
[ "$control" = 1 ] && name=$name-control
[ "$gpu" = 1 ] && name=$name-gpu
[ "$short" = 1 ] && name=$name-short
lab_init "$name" "${1:-}"

if [ "$short" = 1 ]; then
  jobs_total=${PACML_SOAK_JOBS:-200}
  warmup=${PACML_SOAK_WARMUP:-20}
  batch=50
else
  jobs_total=${PACML_SOAK_JOBS:-1000}
  warmup=${PACML_SOAK_WARMUP:-100}
  batch=100
fi
rss_bound_mb=${PACML_SOAK_RSS_MB:-32}
p99_bound_ms=${PACML_SOAK_P99_MS:-50}

cp "$src/tests/fixtures/tiny.txt" "$LAB/graphs/site-tiny.txt"
printf 'node1 -- Input -- forward_compute_time=x, backward_compute_time=0\n' > "$LAB/user/bad.txt"
chmod 644 "$LAB/user/bad.txt"
gpu_conf=""
[ "$gpu" = 1 ] && gpu_conf="cluster: dgx-a100-4x8"
lab_write_pacml_conf reject "reservation_ttl: 0
$gpu_conf"
# MinJobAge=2: ended jobs are purged at Slurm's next purge (≤ 60 s)
if [ "$gpu" = 1 ]; then lab_write_gpu_slurm_conf 2; else lab_write_slurm_conf 2; fi
if [ "$control" = 1 ]; then
  sed -i '/^JobSubmitPlugins=/d' "$SLURM_CONF"
  say "control run: slurm.conf without JobSubmitPlugins, slurmctld runs without pacml"
fi
lab_start
say "cluster up in $(seconds_since "$t_start") s"

# ---- the job mix ------------------------------------------------------------------
# kind|sbatch options (word-split)|expected: decide, pass, or the rejection reason
mix=(
  "gnmt-beta|--pacml-model=gnmt --pacml-beta=0.45|decide"
  "resnet50-beta1|--pacml-model=resnet50 --pacml-beta=1|decide"
  "bert-deadline|--pacml-model=bert-base --pacml-deadline=1:00:00|decide"
  "vgg16-deadline|--pacml-model=vgg16 --pacml-deadline=10:00|decide"
  "comment-alexnet|--comment=pacml:model=alexnet,beta=0.8|decide"
  "graph-dir|--pacml-graph=site-tiny.txt --pacml-beta=1|decide"
  "plain|-N 1|pass"
  "gnmt-infeasible|--pacml-model=gnmt --pacml-beta=0.1|blocked"
  "unknown-model|--pacml-model=resnet9000 --pacml-beta=0.5|unknown model"
  "negative-deadline|--pacml-model=gnmt --pacml-deadline=-10|negative deadline"
  "negative-deadline-comment|--comment=pacml:model=gnmt,deadline=-5|negative deadline"
  "malformed-graph|--pacml-graph=$LAB/user/bad.txt --pacml-beta=0.5|malformed graph"
  "beta-above-1|--pacml-model=gnmt --pacml-beta=1.5|beta out of range"
  "beta-above-1-comment|--comment=pacml:model=gnmt,beta=1.5|beta out of range"
  "beta-and-deadline|--pacml-model=gnmt --pacml-beta=0.5 --pacml-deadline=10|beta and deadline"
)
if [ "$gpu" = 1 ]; then
  # a GPU cluster: gnmt at β 0.1 may be met with enough GPUs; nobody's own
  # graph file (read with nobody's rights) as well as the site's
  mix[${#mix[@]}]="graph-user|--pacml-graph=mine.txt --pacml-beta=1|decide"
  cp "$src/tests/fixtures/tiny.txt" "$LAB/user/mine.txt" && chmod 644 "$LAB/user/mine.txt"
  for n in "${!mix[@]}"; do
    case ${mix[$n]} in
      gnmt-infeasible\|*) mix[$n]="${mix[$n]%|*}|decide" ;;
    esac
  done
fi
reason_of() { # reason_of STDERR_FILE -> the rejection reason, "" if none is recognisable
  local e=$1
  if grep -q "cannot meet its requirement" "$e"; then echo blocked
  elif grep -q "unknown model" "$e"; then echo "unknown model"
  elif grep -q "must not be negative" "$e"; then echo "negative deadline"
  elif grep -q "not a valid PipeDream graph" "$e"; then echo "malformed graph"
  elif grep -Eq "expected a fraction|beta must be in \(0, 1\]" "$e"; then echo "beta out of range"
  elif grep -q "not both" "$e"; then echo "beta and deadline"
  fi
}

rss_kb() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$(lab_ctld_pid)/status"; }
jobs_in_table() { timeout 10 squeue -h -t all -o %i 2>/dev/null | wc -l; }
wait_purged() { # wait until slurmctld has purged every ended job (its purge runs once a minute)
  timeout 10 scancel -u root 2>/dev/null
  timeout 10 scancel -u nobody 2>/dev/null
  [ "$short" = 1 ] && return 0 # --short: the RSS counts the cancelled jobs' records too
  for _ in $(seq 1 150); do
    [ "$(jobs_in_table)" -eq 0 ] && return 0
    sleep 0.5
  done
  return 1
}

: > "$LAB/results"        # i|kind|expected|job id|outcome (decided/pass/reason/UNCLEAR…)|sbatch ms
: > "$LAB/annotations"    # submission index|AdminComment (not keyed by job id: after
                          # `scontrol reconfigure` slurmctld hands out purged jobs' ids again)
pings_failed=0
rss_series=""
mb() { python3 -c "import sys; print(' '.join(f'{int(k) / 1024:.1f}' for k in sys.argv[1:]))" "$@"; }
collect_annotations() { # cancel the batch's jobs (held or still running); sample the RSS
  timeout 20 scancel -u root 2>/dev/null
  timeout 20 scancel -u nobody 2>/dev/null
  ping_ok || pings_failed=$((pings_failed + 1))
  rss_series="$rss_series $(rss_kb)"
}

submit_one() { # submit_one I
  local i=$1 entry kind opts expected hold=--hold j ms t0 t1 outcome as=()
  entry=${mix[$(((i * 7) % ${#mix[@]}))]}
  kind=${entry%%|*}; opts=${entry#*|}; expected=${opts#*|}; opts=${opts%%|*}
  # graph-user: nobody submits from $LAB/user (the job runs in /tmp)
  [ "$kind" = graph-user ] &&
    as=(setpriv --reuid=nobody --regid=nogroup --clear-groups env SLURM_CONF="$SLURM_CONF") opts="$opts --chdir=/tmp"
  [ "$expected" = decide ] && [ $((i % 10)) = 0 ] && hold=""   # every 10th valid job runs
  t0=$(date +%s%N)
  # shellcheck disable=SC2086
  j=$(cd "$LAB/user" && "${as[@]}" timeout 20 sbatch --parsable -o /dev/null $hold $opts --wrap true 2> "$LAB/err")
  t1=$(date +%s%N)
  ms=$(((t1 - t0) / 1000))
  if [ -n "$j" ]; then
    outcome=accepted
    # the decision annotation, at once (a job that ran may be purged a minute later)
    echo "$i|$(timeout 5 scontrol -o show job "$j" | tr ' ' '\n' | sed -n 's/^AdminComment=//p')" >> "$LAB/annotations"
  else
    outcome=$(reason_of "$LAB/err")
  fi
  [ -z "$outcome" ] && outcome="UNCLEAR: $(head -c 200 "$LAB/err" | tr '\n|' '  ')"
  echo "$i|$kind|$expected|${j:-}|$outcome|$ms" >> "$LAB/results"
}

# ---- warm-up: every kind once or more, then an empty job table ------------------------
say "warm-up: $warmup submissions, then wait for Slurm to purge them"
for i in $(seq 1 "$warmup"); do submit_one "$i"; done
collect_annotations
wait_purged || say "warning: the job table did not empty after the warm-up"
rss0=$(rss_kb)
say "slurmctld RSS after warm-up: $((rss0 / 1024)) MB ($(jobs_in_table) jobs in the table)"

# ---- the soak ---------------------------------------------------------------------------
t_soak=$(date +%s.%N)
third=$(((jobs_total - warmup) / 3))
for i in $(seq $((warmup + 1)) "$jobs_total"); do
  k=$((i - warmup))
  if [ "$k" = $((third + 1)) ]; then
    say "  job $i: pacml.conf changes policy to fixed:4 (no reconfigure needed)"
    lab_write_pacml_conf reject "reservation_ttl: 0
policy: fixed:4
$gpu_conf"
    echo "$i" > "$LAB/phase2"
  fi
  if [ "$k" = $((2 * third + 1)) ]; then
    say "  job $i: scontrol reconfigure with SchedulerParameters=...,pacml_policy=min_feasible,pacml_margin=0.05"
    rss_pre_reconf=$(rss_kb)
    lab_set_sched_params "pacml_policy=min_feasible,pacml_margin=0.05"
    ping_ok || pings_failed=$((pings_failed + 1))
    say "  slurmctld RSS around the reconfigure: $(mb "$rss_pre_reconf") -> $(mb "$(rss_kb)") MB"
    echo "$i" > "$LAB/phase3"
  fi
  submit_one "$i"
  [ $((k % batch)) = 0 ] && collect_annotations
  [ $((k % 50)) = 0 ] && { ping_ok || pings_failed=$((pings_failed + 1)); }
done
collect_annotations
t_soak_end=$(date +%s.%N)
say "$((jobs_total - warmup)) soak submissions in $(python3 -c "print(round($t_soak_end - $t_soak, 1))") s; waiting for Slurm to purge them"
wait_purged || say "warning: the job table did not empty at the end"
rss1=$(rss_kb)
say "slurmctld RSS (MB) after each batch of $batch: $(mb $rss_series); after the final purge $(mb "$rss1")"
sleep 1   # the decision log's last lines (job ids resolved in the background)
[ -e "$LAB/log/decisions.jsonl" ] || : > "$LAB/log/decisions.jsonl"   # none without the plugin

# ---- figures and checks -------------------------------------------------------------------
python3 - "$LAB/results" "$LAB/annotations" "$LAB/log/decisions.jsonl" "$(cat "$LAB/phase2")" \
  "$(cat "$LAB/phase3")" "$rss0" "$rss1" "$rss_bound_mb" "$control" "$p99_bound_ms" > "$LAB/figures" <<'EOF'
import json, sys, collections
results, annotations, log, phase2, phase3, rss0, rss1, bound, control, p99_bound = sys.argv[1:]
phase2, phase3, rss0, rss1, bound = int(phase2), int(phase3), int(rss0), int(rss1), int(bound)
p99_bound = float(p99_bound)
control = control == "1"
ann = {}
for line in open(annotations):
    i, _, a = line.rstrip("\n").partition("|")
    ann[i] = a
rows = [l.rstrip("\n").split("|") for l in open(results)]
c = collections.Counter(); reasons = collections.Counter(); problems = []
policies = {1: collections.Counter(), 2: collections.Counter(), 3: collections.Counter()}
sbatch_ms = []
for i, kind, expected, job, outcome, us in rows:
    i = int(i); sbatch_ms.append(int(us) / 1000)
    phase = 3 if i >= phase3 else 2 if i >= phase2 else 1
    if outcome == "accepted":
        a = ann.get(str(i))
        if a is None:
            problems.append(f"{i} {kind}: job {job} not seen in the job table"); continue
        if a.startswith("pacml-decision:degree=") or a.startswith("pacml-plan:gpus="):
            c["decided"] += 1
            policies[phase][a.split("policy=")[1].split(",")[0].split(" ")[0]] += 1
            if expected != "decide": problems.append(f"{i} {kind}: decided, expected {expected}")
        elif expected == "pass":
            c["passed through (no pacml options)"] += 1
        else:
            problems.append(f"{i} {kind}: job {job} accepted without a pacml decision ({a!r})")
    elif outcome.startswith("UNCLEAR"):
        problems.append(f"{i} {kind}: rejected without a clear message: {outcome}")
    else:
        c["rejected"] += 1; reasons[outcome] += 1
        if outcome != expected and not (outcome == "blocked" and expected == "decide"):
            problems.append(f"{i} {kind}: rejected as {outcome}, expected {expected}")
def pct(v, p):
    v = sorted(v); return v[min(len(v) - 1, int(p / 100 * len(v)))] if v else float("nan")
if control:
    # without the plugin: every submission is accepted (no annotation), except what
    # spank_pacml's syntax checks reject at the command line (β > 1, --pacml-deadline=-10)
    at_sbatch = {"beta out of range", "negative deadline"}
    c = collections.Counter(); problems = []
    for i, kind, expected, job, outcome, us in rows:
        if outcome == "accepted":
            c["accepted"] += 1
            a = ann.get(str(i))
            if a is None: problems.append(f"{i} {kind}: job {job} not seen in the job table")
            elif a.startswith("pacml-decision:"): problems.append(f"{i} {kind}: a pacml decision in a control run")
        elif outcome in at_sbatch and expected == outcome and not kind.endswith("-comment"):
            c["rejected by sbatch"] += 1
        else:
            problems.append(f"{i} {kind}: {outcome}, expected accepted in a control run")
    print(f"mode                  control: slurmctld without job_submit/pacml")
    print(f"jobs submitted        {len(rows)}")
    print(f"accepted              {c['accepted']}  (job records created, cancelled and purged)")
    print(f"rejected by sbatch    {c['rejected by sbatch']}  (spank_pacml syntax checks; never reach slurmctld)")
    print(f"unaccounted           {len(problems)}")
    for p in problems[:20]: print("  PROBLEM " + p)
    print(f"sbatch end to end     p50 {pct(sbatch_ms, 50):.1f} ms  p99 {pct(sbatch_ms, 99):.1f} ms")
    print(f"slurmctld RSS         {rss0/1024:.1f} MB after warm-up -> {rss1/1024:.1f} MB at the end: "
          f"{(rss1-rss0)/1024:+.1f} MB (bound {bound} MB)")
    ok = not problems and len(rows) > 0 and rss1 - rss0 < bound * 1024
    print("SOAK-OK" if ok else "SOAK-FAILED")
    sys.exit(0)
lat = []
for line in open(log):
    try: d = json.loads(line)
    except ValueError: problems.append("decision log: a line is not JSON"); continue
    if "latency_ms" in d: lat.append(d["latency_ms"])
print(f"jobs submitted        {len(rows)}")
print(f"decisions             {c['decided']}  (annotated with a pacml decision or GPU plan)")
print(f"passed through        {c['passed through (no pacml options)']}  (jobs without pacml options)")
print(f"rejections            {c['rejected']}")
for r, n in sorted(reasons.items(), key=lambda x: -x[1]): print(f"  {r:22s}{n}")
print(f"unaccounted           {len(problems)}")
for p in problems[:20]: print("  PROBLEM " + p)
print("policy in decisions   " + "; ".join(
    f"phase {k}: " + ", ".join(f"{p} {n}" for p, n in v.most_common()) for k, v in policies.items()))
print(f"decision latency      p50 {pct(lat, 50):.3f} ms  p99 {pct(lat, 99):.3f} ms  max {max(lat):.3f} ms"
      f"  ({len(lat)} logged decisions, inside job_submit; p99 bound {p99_bound:g} ms)")
by_kind = collections.defaultdict(list)
for line in open(log):
    try: d = json.loads(line)
    except ValueError: continue
    if "latency_ms" in d: by_kind["graph file" if d.get("graph") else "zoo model"].append(d["latency_ms"])
print("  by request          " + "; ".join(
    f"{k}: p50 {pct(v, 50):.3f} ms p99 {pct(v, 99):.3f} ms ({len(v)})" for k, v in sorted(by_kind.items())))
print(f"sbatch end to end     p50 {pct(sbatch_ms, 50):.1f} ms  p99 {pct(sbatch_ms, 99):.1f} ms")
print(f"slurmctld RSS         {rss0/1024:.1f} MB after warm-up -> {rss1/1024:.1f} MB at the end: "
      f"{(rss1-rss0)/1024:+.1f} MB (bound {bound} MB)")
ok = (not problems and len(rows) > 0 and c["decided"] > 0 and rss1 - rss0 < bound * 1024
      and policies[2]["fixed:4"] > 0 and set(policies[3]) == {"min_feasible"}
      and pct(lat, 99) <= p99_bound)
print("SOAK-OK" if ok else "SOAK-FAILED")
EOF
sed -e '/^SOAK-/d' -e 's/^/    /' "$LAB/figures"
n_results=$(grep -c . "$LAB/results")
check "$n_results submissions made ($jobs_total planned)" [ "$n_results" = "$jobs_total" ]
if [ "$control" = 1 ]; then
  check "control: every submission accepted without a pacml decision, or rejected by sbatch's option checks" \
    bash -c "grep -q '^unaccounted           0$' '$LAB/figures'"
  check "control: slurmctld did not load job_submit/pacml" \
    bash -c "! grep -q 'job_submit/pacml\\|pacml: ' '$LAB/log/slurmctld.log'"
else
  check "every submission got a decision, a pass-through or a clear rejection" \
    bash -c "grep -q '^unaccounted           0$' '$LAB/figures'"
  check "the pacml.conf policy switch shows in the decisions (fixed:4)" \
    bash -c "grep -q 'phase 2: .*fixed:4' '$LAB/figures'"
  check "after scontrol reconfigure SchedulerParameters' policy wins (min_feasible only)" \
    bash -c "grep '^policy in decisions' '$LAB/figures' | grep -q 'phase 3: min_feasible [0-9]*$'"
fi
check "slurmctld answered every ping ($pings_failed failed)" [ "$pings_failed" = 0 ]
check "slurmctld still alive at the end" ping_ok
check "no internal errors in the plugin" bash -c "! grep -q 'pacml: internal error\|job passed through unchanged after an internal error' '$LAB/log/slurmctld.log'"
check "slurmctld RSS growth below $rss_bound_mb MB" [ $((rss1 - rss0)) -lt $((rss_bound_mb * 1024)) ]
[ "$control" = 1 ] || check "decision latency p99 within $p99_bound_ms ms" \
  python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= $p99_bound_ms else 1)" \
  "$(sed -n 's/^decision latency .* p99 \([0-9.]*\) ms .*/\1/p' "$LAB/figures")"
check "figures complete" grep -q '^SOAK-OK$' "$LAB/figures"

say "$pass passed, $fail failed in $(seconds_since "$t_start") s"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
