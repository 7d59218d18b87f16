#!/bin/sh
# The scripts that write doc/'s results tables: heldout_table.py counts rows
# and picks the best baseline, cap teacher and rollout search from the runs'
# JSON alone (here, made-up runs whose answers are known); elasticflow_table.py
# writes a row per replay and admission, compares with ElasticFlow's points and
# names a missing replay; elasticflow-replay.sh refuses an unknown option and
# says when ElasticFlow's archive is absent; replace_block.py rewrites only the
# named block and refuses a document without it; default_experiment_table.py
# compares the learned policy with capped:0.3 and the best other baseline;
# the table scripts of doc/RESULTS.md sections 4 to 11 (workload_table.py, physical_table.py,
# zoo_calibration_table.py, paper_table.py, speed_table.py, slurm_table.py,
# fuzz_table.py) on small made-up outputs; all-results.sh's options and one
# step with a stand-in pacml; and every script parses.
. "$(dirname "$0")/../sim/cli/cli_lib.sh"
EXP=$SRC/contrib/experiments

# Two rows (cluster06 on 32 GPUs, immediate and queue): the learned policy
# 0.80; min_feasible 0.70 and capped:1 0.78 (queue: 0.60 and 0.79).
mkdir -p "$tmp/runs/heldout-zoo"
cat > "$tmp/runs/cap-choice.json" <<'J'
{"cap": "1", "scenarios": 16, "validation_means": {"pacml:default": 0.7, "min_feasible": 0.6,
 "capped:1": 0.65, "capped:2": 0.64}}
J
row() { echo "{\"policy\": \"$1\", \"admission\": \"$2\", \"deadline_met_rate_mean\": $3, \"deadline_met_rate_ci95\": 0.01}"; }
{
  echo '{"summary": ['
  for adm in immediate queue; do
    row pacml:default $adm 0.80; echo ,
    row requested $adm 0.50; echo ,
    row capped:2 $adm 0.81; echo ,
    [ $adm = immediate ] && { row min_feasible $adm 0.70; echo ,; row capped:1 $adm 0.78; echo ,; }
    [ $adm = queue ] && { row min_feasible $adm 0.60; echo ,; row capped:1 $adm 0.79; echo ,; }
    row "hindsight(min_feasible, 200)" $adm 0.85; [ $adm = immediate ] && echo ,
  done
  echo '], "bound": [{"admission": "immediate", "deadline_met_rate_at_most": 0.9},'
  echo '{"admission": "queue", "deadline_met_rate_at_most": 0.95}]}'
} > "$tmp/runs/cluster06-dgx-a100-4x8.json"
expect_ok "heldout_table.py" python3 "$EXP/heldout_table.py" "$tmp/runs"
cp "$tmp/out" "$tmp/table.md"
table=$tmp/table.md
# immediate: missed 0.20 against min_feasible's 0.30 (0.67, yes) and capped:1's 0.22 (0.91, no)
grep -qF "| cluster06 (32 GPUs) | immediate | **0.800 ± 0.010** | min_feasible 0.700 ± 0.010 | 0.780 ± 0.010 | 0.67 | yes | 0.730 | 0.91 | no | 0.810 (capped:2) | 0.850 | 0.900 |" "$table" \
  && pass || fail "immediate row: $(cat "$table")"
# queue: 0.20 against 0.40 (0.50, yes) and 0.21 (0.95, no); the bound 0.95
grep -qF "| cluster06 (32 GPUs) | queue | **0.800 ± 0.010** | min_feasible 0.600 ± 0.010 | 0.790 ± 0.010 | 0.50 | yes | 0.640 | 0.95 | no | 0.810 (capped:2) | 0.850 | 0.950 |" "$table" \
  && pass || fail "queue row: $(cat "$table")"
grep -qF "than the best baseline in 2 of 2 rows, and than capped:1 in 0 of 2" "$table" \
  && pass || fail "counts: $(cat "$table")"
# gain over min_feasible: learned 0.80 vs 0.65 mean; capped:1 0.785: 90 %
grep -qF "capped:1 gets 90 % of pacml:default's gain" "$table" && pass || fail "share: $(cat "$table")"
grep -qF "the best single cap capped:1 0.650" "$table" && pass || fail "validation: $(cat "$table")"
rm -r "$tmp/runs/cluster06-dgx-a100-4x8.json"
expect_error "no held-out results" "no held-out results" python3 "$EXP/heldout_table.py" "$tmp/runs"

# elasticflow_table.py: cluster10 and 195job on both clusters, every policy at
# made-up rates; pacml:default 0.95 on cluster10/32 with a queue (ElasticFlow's
# 0.908: +0.042), min_feasible 0.90 there (−0.008).
mkdir -p "$tmp/ef"
efrow() { echo "{\"policy\": \"$1\", \"admission\": \"$2\", \"deadline_met_rate_mean\": $3, \"unservable_rate_mean\": 0.015, \"blocking_rate_mean\": 0.1}"; }
for t in cluster10 195job; do
  for c in dgx-a100-4x8 dgx-a100-16x8; do
    {
      echo '{"cluster": "test", "mapping": {"jobs": 260}, "summary": ['
      for adm in immediate queue; do
        efrow min_feasible $adm 0.90; echo ,
        efrow requested $adm 0.40; echo ,
        efrow para_max $adm 0.60; echo ,
        efrow pacml:default $adm 0.95; [ $adm = immediate ] && echo ,
      done
      echo ']}'
    } > "$tmp/ef/$t-$c.json"
  done
done
expect_ok "elasticflow_table.py" python3 "$EXP/elasticflow_table.py" "$tmp/ef" cluster10 195job
cp "$tmp/out" "$tmp/ef-table.md"
[ "$(grep -c '^| \(cluster10\|195job\) | 260 |' "$tmp/ef-table.md")" = 8 ] \
  && pass || fail "a row per JSON and admission: $(cat "$tmp/ef-table.md")"
grep -qF "| cluster10 | 260 | 32 | queue | 0.900 | 0.400 | 0.600 | **0.950** | 0.015 | 0.908 |" "$tmp/ef-table.md" \
  && pass || fail "cluster10 queue row: $(cat "$tmp/ef-table.md")"
grep -qF "| cluster10 | 32 | 0.908 | 0.900 | −0.008 | 0.950 | +0.042 | 0.269 | 0.600 | 0.419 | 0.400 |" "$tmp/ef-table.md" \
  && pass || fail "ElasticFlow comparison: $(cat "$tmp/ef-table.md")"
grep -qF "copied from ElasticFlow's paper (Gu et al." "$tmp/ef-table.md" \
  && pass || fail "citation: $(cat "$tmp/ef-table.md")"
rm "$tmp/ef/195job-dgx-a100-16x8.json"
expect_error "a missing replay" "195job-dgx-a100-16x8.json is missing" \
  python3 "$EXP/elasticflow_table.py" "$tmp/ef" cluster10 195job
# elasticflow-replay.sh: an unknown option, and no archive.
expect_input_error "unknown option" "unknown option --bogus" sh "$EXP/elasticflow-replay.sh" --bogus
expect_error "no archive" "elasticflow-traces.tar.gz is absent" \
  env PACML_SHARED_DATA="$tmp/nodata" sh "$EXP/elasticflow-replay.sh" "$tmp/ef-out"

# default_experiment_table.py: for each admission, the learned policy against
# capped:0.3 and the best baseline that starts every job it can (here
# min_feasible 0.60 beats requested 0.30); a summary without capped:0.3 is named.
dg() { echo "{\"policy\": \"$1\", \"admission\": \"$2\", \"deadline_met_rate_mean\": $3, \"deadline_met_rate_ci95\": 0.01, \"gpu_hours_per_met_mean\": $4}"; }
{
  echo '['
  for adm in immediate queue; do
    dg pacml:default $adm 0.80 6; echo ,; dg capped:0.3 $adm 0.82 7; echo ,
    dg min_feasible $adm 0.60 12; echo ,; dg requested $adm 0.30 20
    [ $adm = immediate ] && echo ,
  done
  echo ']'
} > "$tmp/summary.json"
expect_ok "default_experiment_table.py" python3 "$EXP/default_experiment_table.py" "$tmp/summary.json"
grep -qF '* Immediate admission: `pacml:default` meets 0.800 ± 0.010 of deadlines at 6.00 GPU-hours per met deadline; `capped:0.3` 0.820 ± 0.010 at 7.00 (difference -0.020); the best baseline that starts every job it can, `min_feasible`, 0.600 ± 0.010 at 12.00.' "$tmp/out" \
  && pass || fail "default experiment sentence: $(cat "$tmp/out")"
echo '[{"policy": "pacml:default", "admission": "immediate", "deadline_met_rate_mean": 0.8}]' > "$tmp/nocap.json"
expect_error "a summary without capped:0.3" "no capped:0.3 run with immediate admission" python3 "$EXP/default_experiment_table.py" "$tmp/nocap.json"
expect_input_error "default-experiment.sh: an unknown option" "unknown option --bogus" sh "$EXP/default-experiment.sh" --bogus

# replace_block.py: only the block changes; a missing block is refused.
printf 'before\n<!-- t -->\nold\n<!-- end of t -->\nafter\n' > "$tmp/doc.md"
echo new > "$tmp/new.md"
expect_ok "replace_block.py" python3 "$EXP/replace_block.py" "$tmp/doc.md" t "$tmp/new.md"
[ "$(cat "$tmp/doc.md")" = "$(printf 'before\n<!-- t -->\nnew\n<!-- end of t -->\nafter')" ] \
  && pass || fail "replaced block: $(cat "$tmp/doc.md")"
expect_error "a document without the block" "no '<!-- u -->'" python3 "$EXP/replace_block.py" "$tmp/doc.md" u "$tmp/new.md"

# workload_table.py: run.txt copied in a code block; min_feasible against
# requested per admission from run.json (0.60 vs 0.30: 2.00x the deadlines at
# 12/24 = 0.50x the GPU-hours per met deadline).
mkdir -p "$tmp/wl"
printf 'policy  admission  deadlines met\nrequested  immediate  0.300 ± 0.010\n' > "$tmp/wl/run.txt"
wl() { echo "{\"policy\": \"$1\", \"admission\": \"$2\", \"deadline_met_rate_mean\": $3, \"deadline_met_rate_ci95\": 0.01, \"gpu_hours_per_met_mean\": $4, \"unservable_rate_mean\": 0.072}"; }
{
  echo '['
  wl min_feasible immediate 0.60 12; echo ,; wl requested immediate 0.30 24; echo ,
  wl min_feasible queue 0.66 13; echo ,; wl requested queue 0.33 26
  echo ']'
} > "$tmp/wl/run.json"
expect_ok "workload_table.py" python3 "$EXP/workload_table.py" "$tmp/wl"
grep -qF 'requested  immediate  0.300 ± 0.010' "$tmp/out" && pass || fail "workload: run.txt not copied: $(cat "$tmp/out")"
grep -qF 'Immediate admission: `min_feasible` meets 0.600 ± 0.010 of deadlines at 12.00 GPU-hours per met deadline, `requested` 0.300 ± 0.010 at 24.00: 2.00× the deadlines met at 0.50× the GPU-hours per met deadline.' "$tmp/out" \
  && pass || fail "workload sentence: $(cat "$tmp/out")"
grep -qF 'Unservable (no GPU count meets the deadline even on an empty cluster): 0.072 of the jobs' "$tmp/out" \
  && pass || fail "workload unservable: $(cat "$tmp/out")"

# physical_table.py: the "after" rows, the calibration table (a point outside
# tolerance gets ✗, weak scaling its own table, calibrate's score lines), the
# strategy cells (tp/pp, oom) and bench-physical's slowest cases.
mkdir -p "$tmp/ph/after" "$tmp/ph/calibrate" "$tmp/ph/strategy"
est() {  # est GPUS:STRATEGY:TP:PP:SPEEDUP:STATUS ...
  printf '['; sep=
  for e in "$@"; do
    IFS=: read -r k s tp pp sp st <<E
$e
E
    printf '%s{"gpus": %s, "strategy": "%s", "tp": %s, "pp": %s, "speedup": %s, "status": "%s"}' "$sep" "$k" "$s" "$tp" "$pp" "$sp" "$st"
    sep=,
  done
  echo ']'
}
est 1:data:1:1:1:ok 2:data:1:1:1.47:ok 4:data:1:1:1.77:ok 8:data:1:1:1.81:ok > "$tmp/ph/after/resnet50.json"
est 1:data:1:1:1:oom 8:data:1:1:5.62:ok > "$tmp/ph/after/gpt2.json"
est 2:data:1:1:1.87:ok 4:data:1:1:3.31:ok 8:data:1:1:5.41:ok > "$tmp/ph/after/resnet50-256-dgx-a100-16x8.json"
echo 'resnet50 (global batch 32, zoo graph) on ...' > "$tmp/ph/after/resnet50.txt"
echo 'gpt2 (global batch 8, zoo graph) on ...' > "$tmp/ph/after/gpt2.txt"
expect_ok "physical_table.py after" python3 "$EXP/physical_table.py" after "$tmp/ph"
grep -qF '| resnet50 at batch 32, gpt2 at 8 (their zoo batches), paper'"'"'s 4×4×2 cluster | 1.47× | 1.77× | 1.81× | 5.62× |' "$tmp/out" \
  && pass || fail "after row: $(cat "$tmp/out")"
{
  echo 'source,model,zoo_model,cluster,batch,gpus,per_gpu_batch,measured_speedup,predicted_speedup,measured_step_time,predicted_step_time,check,error,within'
  echo 'elasticflow,bert,bert-base,dgx-a100-16x8,64,1,0,1,1,0.166,0.153,step_time,-0.08,yes'
  echo 'elasticflow,bert,bert-base,dgx-a100-16x8,64,2,0,1.43,1.49,,0.1,speedup,0.04,yes'
  echo 'elasticflow,bert,bert-base,dgx-a100-16x8,64,4,0,2.5,3.17,,0.05,speedup,0.27,no'
  echo 'published,resnet50,resnet50,dgx2-v100,256,2,128,1.96,1.98,,0.2,speedup,0.01,yes'
} > "$tmp/ph/calibrate/calibration.csv"
printf 'source  model\n------\nspeed-up: 1 of 2 within tolerance (50%%), target 90%%: NOT met\n' > "$tmp/ph/calibrate/calibrate.txt"
expect_ok "physical_table.py calibration" python3 "$EXP/physical_table.py" calibration "$tmp/ph"
grep -qF '| bert (bert-base) | 64 | 0.166 / 0.153 | 1.43 / 1.49 | 2.50 / 3.17 ✗ |' "$tmp/out" \
  && pass || fail "calibration row: $(cat "$tmp/out")"
grep -qF '| resnet50 | dgx2-v100 | 128 | 2 | 1.96 | 1.98 |' "$tmp/out" && grep -qF 'speed-up: 1 of 2 within tolerance' "$tmp/out" \
  && pass || fail "weak scaling and score lines: $(cat "$tmp/out")"
echo 'gpt2:64' > "$tmp/ph/strategy/models.txt"
for c in dgx-a100-16x8 ramp-a100-16x8; do
  est 1:data:1:1:1:oom 2:pipeline:1:2:1.7:ok 16:hybrid:4:1:5.1:ok > "$tmp/ph/strategy/$c-gpt2-64.json"
done
expect_ok "physical_table.py strategy" python3 "$EXP/physical_table.py" strategy "$tmp/ph"
grep -qF '| gpt2 (64) | oom | pipeline pp2 1.7× | – | – | hybrid tp4 5.1× | – | – |' "$tmp/out" \
  && pass || fail "strategy row: $(cat "$tmp/out")"
echo '[{"model": "gpt2", "ops": 41, "strategy": "op", "gpus": 64, "cold_ms": 3.4, "warm_ms": 0.2, "status": "ok"},
 {"model": "vgg16", "ops": 368, "strategy": "data", "gpus": 8, "cold_ms": 1.0, "warm_ms": 1.5, "status": "ok"}]' > "$tmp/ph/bench-physical.json"
expect_ok "physical_table.py bench-physical" python3 "$EXP/physical_table.py" bench-physical "$tmp/ph"
grep -qF '| cold estimate (a new job) | **3.40** | gpt2 (41 ops), op, 64 GPUs | 10 ms (met) |' "$tmp/out" \
  && grep -qF '| warm estimate (graphs cached) | **1.50** | vgg16 (368 ops), data, 8 GPUs | 1 ms (NOT met) |' "$tmp/out" \
  && pass || fail "bench-physical: $(cat "$tmp/out")"
expect_error "physical_table.py: a missing file" "after/resnet50.json is missing" python3 "$EXP/physical_table.py" after "$tmp/nothing"

# zoo_calibration_table.py: both outputs as they are, each under its command.
mkdir -p "$tmp/zoo"
echo 'alexnet  256 23/23 1.00' > "$tmp/zoo/a100.txt"
echo 'alexnet  256 23/23 0.58' > "$tmp/zoo/v100.txt"
expect_ok "zoo_calibration_table.py" python3 "$EXP/zoo_calibration_table.py" "$tmp/zoo"
grep -qF 'alexnet  256 23/23 1.00' "$tmp/out" && grep -qF 'alexnet  256 23/23 0.58' "$tmp/out" \
  && grep -qF -- '--device contrib/devices/v100.yaml`:' "$tmp/out" && pass || fail "zoo calibration: $(cat "$tmp/out")"
rm "$tmp/zoo/v100.txt"
expect_error "zoo_calibration_table.py: a missing run" "v100.txt is missing" python3 "$EXP/zoo_calibration_table.py" "$tmp/zoo"

# paper_table.py: the best baseline of each β in bold; the learned models
# against it; the physical table with the bound.
mkdir -p "$tmp/paper"
pr() { echo "{\"policy\": \"$1\", \"beta_dist\": \"$2\", \"blocking_rate_mean\": $3, \"blocking_rate_ci95\": $4}"; }
{
  echo '['
  for b in A B C D; do
    pr pacml:reference $b 0.21 0.01; echo ,; pr para_max $b 0.26 0.005; echo ,
    pr fixed:4 $b 0.22 0.009; echo ,; pr sequential $b 0.999 0; [ $b = D ] || echo ,
  done
  echo ", $(pr fixed:2 B 0.22 0.009)"   # ties fixed:4 on B
  echo ']'
} > "$tmp/paper/paper.json"
echo "[$(pr pacml:reference-A A 0.1998 0.0065)]" > "$tmp/paper/reference-A.json"
echo "[$(pr pacml:reference-B B 0.2601 0.0051)]" > "$tmp/paper/reference-B.json"
{
  echo '['
  for b in A B C D; do
    pr pacml:physical $b 0.37 0.01; echo ,; pr min_feasible $b 0.37 0.01; echo ,
    pr fixed:4 $b 0.30 0.01; echo ,
    echo "{\"bound\": \"unservable_on_empty_cluster\", \"beta_dist\": \"$b\", \"blocking_rate_mean\": 0.04, \"blocking_rate_ci95\": 0.002}"
    [ $b = D ] || echo ,
  done
  echo ']'
} > "$tmp/paper/paper-physical.json"
echo "[$(pr pacml:physical-D D 0.19 0.01)]" > "$tmp/paper/physical-D.json"
expect_ok "paper_table.py baselines" python3 "$EXP/paper_table.py" baselines "$tmp/paper"
grep -qF '| fixed:4 | **0.2200 ± 0.0090** | **0.2200 ± 0.0090** |' "$tmp/out" && grep -qF '| sequential | 0.9990 | 0.9990 |' "$tmp/out" \
  && ! grep -q pacml: "$tmp/out" && grep -qF 'Best per β: A `fixed:4`; B `fixed:4`, `fixed:2`; C' "$tmp/out" \
  && grep -qF '| fixed:2 | – | **0.2200 ± 0.0090** | – | – |' "$tmp/out" && pass || fail "paper baselines: $(cat "$tmp/out")"
expect_ok "paper_table.py learned" python3 "$EXP/paper_table.py" learned "$tmp/paper"
grep -qF '| best baseline | 0.2200 (fixed:4) | 0.2200 (fixed:4, fixed:2) |' "$tmp/out" \
  && grep -qF 'β A: `pacml:reference-A` 0.1998, 0.0202 below the best baseline'"'"'s (`fixed:4`) 0.2200' "$tmp/out" \
  && grep -qF 'β B: `pacml:reference` 0.2100, 0.0100 below' "$tmp/out" \
  && grep -qF "| paper's PAC-ML (its published figures, not rerun) | 0.20–0.22 |" "$tmp/out" \
  && pass || fail "paper learned: $(cat "$tmp/out")"
expect_ok "paper_table.py physical" python3 "$EXP/paper_table.py" physical "$tmp/paper"
grep -qF '| pacml:physical-D (D only) | – | – | – | 0.1900 ± 0.0100 |' "$tmp/out" \
  && grep -qF '| no degree serves it on an empty cluster (`--bound`) | 0.0400 ± 0.0020 |' "$tmp/out" \
  && pass || fail "paper physical: $(cat "$tmp/out")"

# speed_table.py: the bench table with the slowest lookahead in bold;
# bench-sim's output as it is.
mkdir -p "$tmp/speed"
echo '[{"graph": "alexnet", "action": 16, "ops": 616, "deps": 13172, "ticks": 1, "prepare_ms": 1.7, "lookahead_ms": 1.6},
 {"graph": "resnet18", "action": 16, "ops": 1972, "deps": 41874, "ticks": 1, "prepare_ms": 4.3, "lookahead_ms": 3.7}]' > "$tmp/speed/bench.json"
echo 'paper episode: reference profile, 4x4x2' > "$tmp/speed/bench-sim.txt"
expect_ok "speed_table.py bench" python3 "$EXP/speed_table.py" bench "$tmp/speed"
grep -qF '| resnet18 | 1972 | 41874 | **3.7** | 4.3 |' "$tmp/out" && grep -qF "resnet18's 3.7 ms against a 10 ms goal (met)" "$tmp/out" \
  && pass || fail "bench table: $(cat "$tmp/out")"
expect_ok "speed_table.py bench-sim" python3 "$EXP/speed_table.py" bench-sim "$tmp/speed"
grep -qF 'paper episode: reference profile, 4x4x2' "$tmp/out" && pass || fail "bench-sim: $(cat "$tmp/out")"

# slurm_table.py: latency rows from pacml-plugin-bench's JSON; the soak's
# figures (indented 4 in its log), RSS series and check count.
mkdir -p "$tmp/slurm"
echo '{"model": "gnmt", "policy": "pacml:default", "beta": 0.5, "iterations": 2000, "load_ms": 30.1, "first_ms": 5.2, "p50_ms": 0.0412, "p99_ms": 0.0903, "max_ms": 0.5, "placed": 2001, "rejected": 0}' > "$tmp/slurm/latency-default.json"
echo '{"model": "gnmt", "policy": "pacml:reference", "beta": 0.5, "iterations": 2000, "load_ms": 30.1, "first_ms": 9.9, "p50_ms": 0.1, "p99_ms": 0.17, "max_ms": 0.9, "placed": 2001, "rejected": 0}' > "$tmp/slurm/latency-reference.json"
expect_ok "slurm_table.py latency" python3 "$EXP/slurm_table.py" latency "$tmp/slurm"
grep -qF '| `pacml:default` (learned GPU policy, physical profile) | gnmt | 0.5 | 2000 | 0.041 | 0.090 | 0.500 | 5.20 | 30.10 | 2001 / 0 |' "$tmp/out" \
  && pass || fail "latency row: $(cat "$tmp/out")"
sed -i 's/"placed": 2001/"placed": 0/' "$tmp/slurm/latency-reference.json"
expect_error "slurm_table.py: no decision placed" "no decision with pacml:reference" python3 "$EXP/slurm_table.py" latency "$tmp/slurm"
printf '\033[1mslurm-soak:\033[0m slurmctld RSS (MB) after each batch of 100: 15.7 16.6; after the final purge 20.4\n    jobs submitted        1000\n    rejections            601\n      blocked               134\n  ok   slurmctld still alive at the end\n15 passed, 0 failed\n' > "$tmp/slurm/soak.log"
expect_ok "slurm_table.py soak" python3 "$EXP/slurm_table.py" soak "$tmp/slurm"
grep -qxF 'jobs submitted        1000' "$tmp/out" && grep -qxF '  blocked               134' "$tmp/out" \
  && grep -qxF 'slurmctld RSS (MB) after each batch of 100: 15.7 16.6; after the final purge 20.4' "$tmp/out" \
  && grep -qF "checks: 15 passed, 0 failed." "$tmp/out" && ! grep -q 'still alive' "$tmp/out" \
  && pass || fail "soak figures: $(cat "$tmp/out")"

# fuzz_table.py: run-fuzz.sh's summary as it is, and the crashes counted.
mkdir -p "$tmp/fuzz/artifacts"
{
  echo '| target | seconds | executions | exec/s | corpus files | coverage | result |'
  echo '|---|---|---|---|---|---|---|'
  echo '| pipedream | 60 | 158000 | 2600 | 120 | 900 | ok |'
  echo '| swf | 61 | 7400000 | 121000 | 80 | 700 | CRASH (exit 1; see /tmp/x/fuzz-out/logs/swf.log) |'
} > "$tmp/fuzz/summary.md"
touch "$tmp/fuzz/artifacts/swf-crash-1"
expect_ok "fuzz_table.py" python3 "$EXP/fuzz_table.py" "$tmp/fuzz"
grep -qF '2 targets, 158,000–7,400,000 executions per target; 1 crashed (swf; 1 reproducers).' "$tmp/out" \
  && grep -qF '| pipedream | 60 | 158000 |' "$tmp/out" && grep -qF 'CRASH (exit 1; see FUZZ_OUT/logs/swf.log) |' "$tmp/out" \
  && pass || fail "fuzz table: $(cat "$tmp/out")"

# all-results.sh: options checked; --only workload with a stand-in pacml
# writes the fitted-workload block of a copy of RESULTS.md and its timing.
expect_input_error "all-results.sh: an unknown option" "unknown option --bogus" sh "$EXP/all-results.sh" --bogus
expect_input_error "all-results.sh: an unknown step" "unknown step 'bogus'" sh "$EXP/all-results.sh" --skip bogus
mkdir -p "$tmp/all/doc"
printf '# R\n<!-- fitted workload -->\nold\n<!-- end of fitted workload -->\n' > "$tmp/all/doc/RESULTS.md"
cat > "$tmp/fake-pacml" <<F
#!/bin/sh
case "\$*" in
  *--json*) cat "$tmp/wl/run.json" ;;
  *) cat "$tmp/wl/run.txt" ;;
esac
F
chmod +x "$tmp/fake-pacml"
expect_ok "all-results.sh --only workload" env PACML="$tmp/fake-pacml" sh "$EXP/all-results.sh" \
  --only workload --doc-dir "$tmp/all/doc" --out-dir "$tmp/all/out"
grep -qF 'Made by `contrib/experiments/fitted-workload.sh`' "$tmp/all/doc/RESULTS.md" && ! grep -qx old "$tmp/all/doc/RESULTS.md" \
  && grep -q '^workload ok ' "$tmp/all/out/timings.txt" && grep -q '^heldout skipped' "$tmp/all/out/timings.txt" \
  && pass || fail "all-results.sh --only workload: $(cat "$tmp/all/doc/RESULTS.md" "$tmp/all/out/timings.txt" "$tmp/all/out/workload.log")"

# Every results script parses (sh -n).
for s in "$EXP"/*.sh; do
  sh -n "$s" && pass || fail "sh -n $s"
done
finish
