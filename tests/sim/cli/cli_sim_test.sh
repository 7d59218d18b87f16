#!/bin/sh
# Command-line tests of pacml simulate / evaluate / replay (issue 4).
# Env: PACML (the binary), PACML_SHARED_DATA (default $PACML_SOURCE_DIR/../shared/data when
# PACML_SOURCE_DIR is set; may be absent: data tests skip).
set -u
PACML=${PACML:-./pacml}
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pacml-cli-sim.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok - $1"; }
bad() { echo "FAIL - $1"; fail=1; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
json_get() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }  # json_get FILE EXPR-ON-d

cat >"$tmp/small.yaml" <<'YAML'
pacml_experiment: 1
name: cli-small
profile: reference
topology: 2x2x2
horizon: 50000
workload:
  type: synthetic
  graphs: [alexnet, gnmt]
  interarrival: 500
beta: [A, C]
policies: [para_max, fixed:2]
seeds: 2
YAML

# simulate --json: one object with the required keys.
"$PACML" simulate "$tmp/small.yaml" --policy para_min --seed 3 --beta-dist B --json >"$tmp/sim.json" 2>"$tmp/err"
check "simulate --json exits 0" "[ $? -eq 0 ]"
for key in blocking_rate arrived decisions accepted; do
  check "simulate --json has $key" "grep -q '\"$key\"' '$tmp/sim.json'"
done
check "simulate --json prints one line" "[ \$(wc -l <'$tmp/sim.json') -eq 1 ]"

# Determinism: same config and seed, byte-identical CSV.
"$PACML" simulate "$tmp/small.yaml" --policy random --seed 5 --jobs-csv "$tmp/a.csv" --timeline-csv "$tmp/ta.csv" >/dev/null
"$PACML" simulate "$tmp/small.yaml" --policy random --seed 5 --jobs-csv "$tmp/b.csv" --timeline-csv "$tmp/tb.csv" >/dev/null
check "simulate jobs CSV is byte-identical across runs" "cmp -s '$tmp/a.csv' '$tmp/b.csv'"
check "simulate timeline CSV is byte-identical across runs" "cmp -s '$tmp/ta.csv' '$tmp/tb.csv'"
check "jobs CSV has a row per arrival" "[ \$(wc -l <'$tmp/a.csv') -eq 102 ]"

# evaluate --json: an array with the required keys per (policy, β).
"$PACML" evaluate "$tmp/small.yaml" --json --threads 2 >"$tmp/eval.json" 2>"$tmp/err"
check "evaluate --json exits 0" "[ $? -eq 0 ]"
for key in policy beta_dist seeds blocking_rate_mean blocking_rate_ci95 throughput_mean \
  deadline_met_rate_mean unservable_rate_mean gpu_hours_mean queue_delay_mean; do
  check "evaluate --json has $key" "grep -q '\"$key\"' '$tmp/eval.json'"
done
check "evaluate --json has 4 groups" "[ \$(grep -c '\"blocking_rate_mean\"' '$tmp/eval.json') -eq 4 ]"

# evaluate --out writes CSV/JSON; episodes.csv is deterministic.
"$PACML" evaluate "$tmp/small.yaml" --out "$tmp/o1" --no-plots --quiet >/dev/null 2>&1
"$PACML" evaluate "$tmp/small.yaml" --out "$tmp/o2" --no-plots --quiet --threads 1 >/dev/null 2>&1
check "evaluate episodes.csv identical for 2 threads and 1" "cmp -s '$tmp/o1/episodes.csv' '$tmp/o2/episodes.csv'"
check "evaluate writes summary.json" "[ -s '$tmp/o1/summary.json' ]"

# Shards and merge reproduce the whole run.
"$PACML" evaluate "$tmp/small.yaml" --shard 0/2 --out "$tmp/sh" >/dev/null 2>&1
"$PACML" evaluate "$tmp/small.yaml" --shard 1/2 --out "$tmp/sh" >/dev/null 2>&1
"$PACML" evaluate --merge "$tmp/sh/shard-0-of-2.json" "$tmp/sh/shard-1-of-2.json" --out "$tmp/merged" --json >/dev/null 2>&1
check "merge exits 0" "[ $? -eq 0 ]"
check "merged episodes.csv equals the unsharded one" "cmp -s '$tmp/o1/episodes.csv' '$tmp/merged/episodes.csv'"
"$PACML" evaluate --merge "$tmp/sh/shard-0-of-2.json" >/dev/null 2>&1
check "merge of an incomplete grid exits 3" "[ $? -eq 3 ]"

# --bound: the lower bound row, bounds.csv, never above any policy's blocking.
"$PACML" evaluate "$tmp/small.yaml" --bound --out "$tmp/bd" --no-plots --quiet >"$tmp/out" 2>&1
check "evaluate --bound exits 0" "[ $? -eq 0 ]"
check "evaluate --bound prints the lower bound row" "grep -q '^unservable jobs  *0\.[0-9]* ± ' '$tmp/out'"
check "evaluate --bound writes bounds.csv (2 β × 2 seeds)" \
  "[ \$(grep -c '^[AC],[01],' '$tmp/bd/bounds.csv') -eq 4 ]"
check "the bound is at most every policy's blocking, per seed" \
  "python3 -c \"import csv,sys; b={(r['beta_dist'],r['seed']):float(r['rate']) for r in csv.DictReader(open('$tmp/bd/bounds.csv'))}; e=list(csv.DictReader(open('$tmp/bd/episodes.csv'))); sys.exit(0 if e and all(float(r['blocking_rate']) >= b[(r['beta_dist'],r['seed'])] for r in e) else 1)\""
"$PACML" evaluate "$tmp/small.yaml" --bound --shard 0/2 >/dev/null 2>"$tmp/err"
check "--bound with --shard: exit 2 naming --bound" "[ $? -eq 2 ] && grep -q -- '--bound' '$tmp/err'"

# Bad input: clear errors with file:line, exit 2, never a crash.
"$PACML" simulate "$tmp/small.yaml" --horizon inf >/dev/null 2>"$tmp/err"
check "synthetic workload with --horizon inf: exit 2, says it never ends" \
  "[ $? -eq 2 ] && grep -q 'never ends' '$tmp/err'"
printf 'job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\nx,-4,10,vgg16,50,1,1,5\n' >"$tmp/neg.csv"
"$PACML" replay "$tmp/neg.csv" --format elasticflow >/dev/null 2>"$tmp/err"
check "negative time: exit 2" "[ $? -eq 2 ]"
check "negative time: names file:line" "grep -q 'neg.csv:2' '$tmp/err'"
printf 'job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\nx,4,10,llama,50,1,1,5\ny,5,10,vgg16,50,1,1,5\n' >"$tmp/unk.csv"
"$PACML" replay "$tmp/unk.csv" --format elasticflow >/dev/null 2>"$tmp/err"
check "unknown model: exit 2 naming file:line" "[ $? -eq 2 ] && grep -q \"unk.csv:2: unknown model 'llama'\" '$tmp/err'"
"$PACML" replay "$tmp/unk.csv" --format elasticflow --unknown-model skip --policies para_max >"$tmp/out" 2>"$tmp/err"
check "unknown model skipped and counted" "[ $? -eq 0 ] && grep -q \"skipped 1: unknown model 'llama'\" '$tmp/err'"
"$PACML" replay "$tmp/unk.csv" --format elasticflow --profile reference >/dev/null 2>"$tmp/err"
check "unknown model on the paper's simulator: exit 2 naming file:line" "[ $? -eq 2 ] && grep -q \"unk.csv:2: unknown model 'llama'\" '$tmp/err'"
"$PACML" replay "$tmp/unk.csv" --format elasticflow --profile reference --unknown-model skip --policies para_max >"$tmp/out" 2>"$tmp/err"
check "unknown model skipped and counted on the paper's simulator" "[ $? -eq 0 ] && grep -q \"skipped 1: unknown model 'llama'\" '$tmp/err'"
# --bound: the capacity bound, at or above every policy's deadlines met
"$PACML" replay "$tmp/unk.csv" --format elasticflow --unknown-model skip --admission both --bound >"$tmp/out" 2>"$tmp/err"
check "replay --bound prints the bound per admission mode" \
  "[ $? -eq 0 ] && [ \$(grep -c '^no policy meets more than 1 (1 of 1) with .* admission: capacity bound' '$tmp/out') = 2 ]"
"$PACML" replay "$tmp/unk.csv" --format elasticflow --unknown-model skip --bound --json >"$tmp/out" 2>"$tmp/err"
check "replay --bound --json: bound[0].met_at_most = 1" \
  "[ \"\$(json_get '$tmp/out' \"d['bound'][0]['met_at_most']\")\" = 1 ]"
"$PACML" replay "$tmp/unk.csv" --format elasticflow --profile reference --bound >/dev/null 2>"$tmp/err"
check "replay --bound with --profile reference: exit 2, says it is the GPU replay's" \
  "[ $? -eq 2 ] && grep -q -- '--bound.*applies to the GPU replay' '$tmp/err'"
# --hindsight: the search teacher that knows the trace, a row of its own
"$PACML" replay "$tmp/unk.csv" --format elasticflow --unknown-model skip --admission both --hindsight 5 >"$tmp/out" 2>"$tmp/err"
check "replay --hindsight 5 adds the search's row (immediate admission)" \
  "[ $? -eq 0 ] && grep -q '^hindsight(min_feasible, 5)  *immediate  *1 ' '$tmp/out'"
"$PACML" replay "$tmp/unk.csv" --format elasticflow --unknown-model skip --admission queue --hindsight 5 >"$tmp/out" 2>"$tmp/err"
check "replay --hindsight with a queue: the search's row, queue admission" \
  "[ $? -eq 0 ] && grep -q '^hindsight(min_feasible, 5)  *queue  *1 ' '$tmp/out'"
"$PACML" replay "$tmp/unk.csv" --format elasticflow --unknown-model skip --admission both --hindsight 5 --hindsight-admission both >"$tmp/out" 2>"$tmp/err"
check "replay --hindsight-admission both: a search row per admission" \
  "[ $? -eq 0 ] && [ \$(grep -c '^hindsight(min_feasible, 5) ' '$tmp/out') -eq 2 ]"
"$PACML" replay "$tmp/unk.csv" --format elasticflow --unknown-model skip --admission immediate --hindsight 5 --hindsight-admission queue >/dev/null 2>"$tmp/err"
check "replay --hindsight-admission queue without a queue replayed: exit 2 naming the option" \
  "[ $? -eq 2 ] && grep -q -- '--hindsight-admission.*not replayed' '$tmp/err'"
"$PACML" replay "$tmp/unk.csv" --format elasticflow --unknown-model skip --hindsight-admission both >/dev/null 2>"$tmp/err"
check "replay --hindsight-admission without --hindsight: exit 2" \
  "[ $? -eq 2 ] && grep -q -- '--hindsight-admission.*only with --hindsight' '$tmp/err'"
"$PACML" replay "$tmp/unk.csv" --format elasticflow --unknown-model skip --admission queue --decide submission --hindsight 5 >/dev/null 2>"$tmp/err"
check "replay --hindsight with a queue deciding at submission: exit 2, says --decide start" \
  "[ $? -eq 2 ] && grep -q -- '--hindsight.*--decide start' '$tmp/err'"
"$PACML" replay "$tmp/unk.csv" --format elasticflow --unknown-model skip --admission immediate --hindsight 5 --hindsight-base pacml:default >"$tmp/out" 2>"$tmp/err"
check "replay --hindsight-base pacml:default: the search follows the learned policy (its row's name)" \
  "[ $? -eq 0 ] && grep -q '^hindsight(pacml:default, 5)  *immediate ' '$tmp/out'"
"$PACML" replay "$tmp/unk.csv" --format elasticflow --unknown-model skip --hindsight 5 --hindsight-base nosuch >/dev/null 2>"$tmp/err"
check "replay --hindsight-base with an unknown policy: exit 2 naming the option" \
  "[ $? -eq 2 ] && grep -q -- '--hindsight-base' '$tmp/err'"
"$PACML" replay "$tmp/unk.csv" --format elasticflow --unknown-model skip --hindsight-base min_feasible >/dev/null 2>"$tmp/err"
check "replay --hindsight-base without --hindsight: exit 2" \
  "[ $? -eq 2 ] && grep -q -- '--hindsight-base.*only with --hindsight' '$tmp/err'"
"$PACML" replay "$tmp/unk.csv" --format elasticflow --unknown-model skip --hindsight 0 >/dev/null 2>"$tmp/err"
check "replay --hindsight 0: exit 2 naming the option" "[ $? -eq 2 ] && grep -q -- '--hindsight' '$tmp/err'"
"$PACML" replay "$tmp/nonexistent.csv" --format elasticflow >/dev/null 2>"$tmp/err"
check "unreadable trace: exit 2" "[ $? -eq 2 ] && grep -q 'cannot read' '$tmp/err'"
printf 'pacml_experiment: 1\nworkload: {graphs: [alexnet]}\npolicy: [para_max]\n' >"$tmp/typo.yaml"
"$PACML" simulate "$tmp/typo.yaml" >/dev/null 2>"$tmp/err"
check "experiment typo: exit 2 naming file:line" "[ $? -eq 2 ] && grep -q \"typo.yaml:3: unknown experiment key 'policy'\" '$tmp/err'"
"$PACML" simulate "$tmp/small.yaml" --policy best >/dev/null 2>"$tmp/err"
check "unknown policy: exit 2" "[ $? -eq 2 ]"

# Fitted-workload experiments (issue 15): GPU policies x admission modes on a GPU cluster.
cat >"$tmp/fitted.yaml" <<'YAML'
pacml_experiment: 1
name: cli-fitted
cluster: ramp-a100-16x8
workload: {kind: fitted, params: elasticflow-01-05, load: 3, jobs: 100}
admission: both
policies: [requested, min_feasible]
seeds: 2
YAML
"$PACML" evaluate "$tmp/fitted.yaml" --json >"$tmp/fitted.json" 2>"$tmp/err"
check "evaluate fitted --json exits 0" "[ $? -eq 0 ]"
for key in policy admission blocking_rate_mean deadline_met_rate_mean unservable_rate_mean gpu_hours_mean queue_delay_mean; do
  check "evaluate fitted --json has $key" "grep -q '\"$key\"' '$tmp/fitted.json'"
done
check "evaluate fitted --json has 4 groups" "[ \$(grep -c '\"deadline_met_rate_mean\"' '$tmp/fitted.json') -eq 4 ]"
"$PACML" evaluate "$tmp/fitted.yaml" --json --seeds 2 >"$tmp/fitted2.json" 2>/dev/null
check "evaluate fitted: same seeds, identical JSON" "cmp -s '$tmp/fitted.json' '$tmp/fitted2.json'"
"$PACML" evaluate "$tmp/fitted.yaml" --out "$tmp/fo" --no-plots >"$tmp/out" 2>"$tmp/err"
check "evaluate fitted prints the table" "grep -q '^min_feasible  *queue  *0\.[0-9]* ± ' '$tmp/out'"
check "evaluate fitted --out writes runs.csv (2 x 2 x 2 runs)" "[ \$(wc -l <'$tmp/fo/runs.csv') -eq 9 ]"
"$PACML" evaluate "$tmp/fitted.yaml" --threads 2 >/dev/null 2>"$tmp/err"
check "evaluate fitted --threads: exit 2 (it runs on one thread)" "[ $? -eq 2 ] && grep -q -- '--threads' '$tmp/err'"
"$PACML" evaluate "$tmp/fitted.yaml" --bound >/dev/null 2>"$tmp/err"
check "evaluate fitted --bound: exit 2, names the option" "[ $? -eq 2 ] && grep -q -- '--bound' '$tmp/err'"
"$PACML" evaluate "$tmp/fitted.yaml" --policies requested,para_min >/dev/null 2>"$tmp/err"
check "evaluate fitted with a paper policy: exit 2" "[ $? -eq 2 ]"
printf 'pacml_experiment: 1\nworkload: {kind: fitted, params: elasticflow-01-05}\nadmission: sometimes\n' >"$tmp/badfit.yaml"
"$PACML" evaluate "$tmp/badfit.yaml" >/dev/null 2>"$tmp/err"
check "fitted experiment bad admission: exit 2 naming file:line" "[ $? -eq 2 ] && grep -q 'badfit.yaml:3: admission must be' '$tmp/err'"
"$PACML" simulate "$tmp/fitted.yaml" >/dev/null 2>"$tmp/err"
check "simulate refuses a fitted experiment: exit 2" "[ $? -eq 2 ] && grep -q 'pacml evaluate' '$tmp/err'"

# bench-sim's GPU replay of generated jobs: figures printed, memory reported.
"$PACML" bench-sim --only generated --jobs 3000 >"$tmp/bench" 2>"$tmp/err"
check "bench-sim --only generated exits 0 with wall, CPU and peak RSS" \
  "[ $? -eq 0 ] && grep -q 'draw and replay: wall .* s, CPU .* s, peak RSS .* MB' '$tmp/bench'"
"$PACML" bench-sim --only everything >/dev/null 2>"$tmp/err"
check "bench-sim --only with an unknown benchmark: exit 2" "[ $? -eq 2 ] && grep -q 'unknown benchmark' '$tmp/err'"

# Real traces (skip when ../shared/data is absent).
data=${PACML_SHARED_DATA:-${PACML_SOURCE_DIR:+$PACML_SOURCE_DIR/../shared/data}}
if [ -n "$data" ] && [ -f "$data/elasticflow/elasticflow-traces.tar.gz" ]; then
  tar -xzf "$data/elasticflow/elasticflow-traces.tar.gz" -C "$tmp" cluster10.csv
  # profile physical (the default): on GPUs, the paper's 4x4x2 cluster (32 A100s)
  "$PACML" replay "$tmp/cluster10.csv" --format elasticflow --json >"$tmp/ef.json" 2>"$tmp/err"
  check "replay ElasticFlow cluster10 on GPUs (paper's 4x4x2, physical model) exits 0" "[ $? -eq 0 ]"
  check "replay ElasticFlow cluster10 on GPUs: 260 jobs, 0 skipped, requested/min_feasible/para_max" \
    "[ \"\$(json_get '$tmp/ef.json' \"(d['replay'], d['mapping']['jobs'], d['trace']['skipped'] + d['mapping']['skipped'], [r['policy'] for r in d['summary']])\")\" = \"('gpu', 260, 0, ['requested', 'min_feasible', 'para_max'])\" ]"
  check "replay ElasticFlow cluster10 on GPUs: min_feasible blocks under 20% (the paper's simulator with physical switches blocked 56%)" \
    "json_get '$tmp/ef.json' \"[r['blocking_rate_mean'] for r in d['summary'] if r['policy'] == 'min_feasible'][0]\" | python3 -c 'import sys; sys.exit(0 if float(sys.stdin.read()) < 0.2 else 1)'"
  # --profile reference: the paper's simulator, for parity with the paper
  "$PACML" replay "$tmp/cluster10.csv" --format elasticflow --profile reference --policies para_max,min_feasible --json >"$tmp/efr.json" 2>"$tmp/err"
  check "replay ElasticFlow cluster10 on the paper's simulator (--profile reference) exits 0" "[ $? -eq 0 ]"
  check "replay ElasticFlow cluster10 on the paper's simulator: 260 jobs, 0 skipped" \
    "[ \"\$(json_get '$tmp/efr.json' \"(d['replay'], d['profile'], d['mapping']['jobs'], d['mapping']['skipped'])\")\" = \"('paper', 'reference', 260, 0)\" ]"
else
  echo "skip - ElasticFlow replay: shared data absent (set PACML_SHARED_DATA to ../shared/data)"
fi
if [ -n "$data" ] && [ -f "$data/swf/NASA-iPSC-1993-3.1-cln.swf.gz" ]; then
  "$PACML" replay "$data/swf/NASA-iPSC-1993-3.1-cln.swf.gz" --format swf --models resnet50,vgg16,gnmt \
    --beta-fallback C --policies min_feasible --json >"$tmp/swf.json" 2>"$tmp/err"
  check "replay SWF log on GPUs (paper's 4x4x2, physical model) exits 0" "[ $? -eq 0 ]"
  check "replay SWF log on GPUs replays 18239 jobs, their deadlines from the time limit or a C draw" \
    "[ \"\$(json_get '$tmp/swf.json' \"(d['replay'], d['mapping']['jobs'], sorted(d['mapping']['deadline_from']) <= ['fallback beta C', 'time limit'])\")\" = \"('gpu', 18239, True)\" ]"
  "$PACML" replay "$data/swf/NASA-iPSC-1993-3.1-cln.swf.gz" --format swf --models resnet50,vgg16,gnmt \
    --gpu-scale 0.125 --beta-fallback C --policies para_min --profile reference --json >"$tmp/swfr.json" 2>"$tmp/err"
  check "replay SWF log on the paper's simulator (--profile reference) exits 0" "[ $? -eq 0 ]"
  check "replay SWF log on the paper's simulator replays 18239 jobs" "grep -q '\"jobs\": 18239' '$tmp/swfr.json'"
else
  echo "skip - SWF replay: shared data absent (set PACML_SHARED_DATA to ../shared/data)"
fi
exit $fail
