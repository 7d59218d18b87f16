#!/bin/sh
# The scripts that write doc/'s results tables: heldout_table.py counts rows
# and picks the best baseline, cap teacher and rollout search from the runs'
# JSON alone (here, made-up runs whose answers are known); elasticflow_table.py
# writes a row per replay and admission, compares with ElasticFlow's points and
# names a missing replay; elasticflow-replay.sh refuses an unknown option and
# says when ElasticFlow's archive is absent; replace_block.py rewrites only the
# named block and refuses a document without it; default_experiment_table.py
# compares the learned policy with capped:0.3 and the best other baseline.
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
finish
