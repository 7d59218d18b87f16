#!/bin/sh
# `pacml history join`, `pacml calibrate --history` and `pacml history
# simulate` (issue 31) on the committed fixtures (tests/fixtures/history:
# a decision log in the plugin's format and sacct -P output, made by
# make_fixtures.py): what could not be joined and why, the correction fitted
# from the completed jobs, its file read back, too little evidence refused,
# bad lines named at file:line.
. "$(dirname "$0")/cli_lib.sh"
FIX=$SRC/tests/fixtures/history

expect_ok "history join" "$PACML" history join --log "$FIX/decisions.jsonl" --sacct "$FIX/sacct.txt" --out "$tmp/joined.csv"
grep -q "joined: 40 jobs" "$tmp/err" && pass || fail "join count: $(cat "$tmp/err")"
grep -q "decisions.jsonl:43: decision .* has no job id" "$tmp/err" && pass || fail "no job id reason: $(cat "$tmp/err")"
grep -q "job 4990 is not in the accounting" "$tmp/err" && pass || fail "missing job reason"
grep -q "not joined: 1 rejected" "$tmp/err" && pass || fail "rejected reason"
[ "$(wc -l < "$tmp/joined.csv")" -eq 41 ] && pass || fail "joined.csv: $(wc -l < "$tmp/joined.csv") lines"
expect_ok "history join to stdout" "$PACML" history join --log "$FIX/decisions.jsonl" --sacct "$FIX/sacct.txt"
cmp -s "$tmp/out" "$tmp/joined.csv" && pass || fail "stdout and --out differ"
# sacct --json (Slurm 22.05's and 24.11's shapes of the same jobs): the same CSV
for json in sacct-22.05.json sacct-24.11.json; do
  expect_ok "history join --sacct $json" "$PACML" history join --log "$FIX/decisions.jsonl" --sacct "$FIX/$json"
  cmp -s "$tmp/out" "$tmp/joined.csv" && pass || fail "$json joins differently from sacct.txt"
done
sed 's/"elapsed": 1898/"elapsed": "31:38"/' "$FIX/sacct-24.11.json" > "$tmp/sacct-bad.json"
expect_input_error "a bad sacct --json job" "sacct-bad.json: jobs[0].time.elapsed must be seconds" "$PACML" history join --log "$FIX/decisions.jsonl" --sacct "$tmp/sacct-bad.json"

# The fit: the site runs resnet50 1.6x slower, gpt2's compute 1.3x and its
# communication 2.5x (make_fixtures.py); 30 s of start-up per job.
expect_ok "calibrate --history" "$PACML" calibrate --history "$tmp/joined.csv" --startup 30 --out "$tmp/c.yaml"
grep -q "^usable: 35 jobs (0 timed by the job itself, pacml-report-steps; 35 completed" "$tmp/out" && pass || fail "usable: $(cat "$tmp/out")"
grep -q "^excluded: 2 TIMEOUT" "$tmp/out" && pass || fail "TIMEOUT excluded"
grep -q "^gpt2 .* compute+comm " "$tmp/out" && pass || fail "gpt2 split: $(cat "$tmp/out")"
before=$(sed -n 's/^before: median |predicted\/measured - 1| \([0-9.]*\) %.*/\1/p' "$tmp/out")
after=$(sed -n 's/^after:  median |predicted\/measured - 1| \([0-9.]*\) %.*/\1/p' "$tmp/out")
[ -n "$before" ] && [ -n "$after" ] && awk "BEGIN { exit !($before > 30 && $after < 6) }" && pass ||
  fail "median error before '$before', after '$after'"
grep -q '^  - {model: "resnet50", device: "A100-SXM4-80GB", compute: 1.5' "$tmp/c.yaml" && pass ||
  fail "resnet50 entry: $(cat "$tmp/c.yaml")"
expect_ok "calibrate --log --sacct" "$PACML" calibrate --log "$FIX/decisions.jsonl" --sacct "$FIX/sacct.txt" --startup 30 --out "$tmp/c2.yaml"
grep -v '^fitted_from\|^version' "$tmp/c.yaml" > "$tmp/c.body"
grep -v '^fitted_from\|^version' "$tmp/c2.yaml" > "$tmp/c2.body"
cmp -s "$tmp/c.body" "$tmp/c2.body" && pass || fail "--history and --log/--sacct fit differently"

# The correction in an experiment file.
cat > "$tmp/exp.yaml" <<EOT
pacml_experiment: 1
cluster: dgx-a100-4x8
workload: {kind: fitted, params: elasticflow-01-05, jobs: 100}
admission: queue
policies: [min_feasible]
seeds: 1
correction: c.yaml
EOT
expect_ok "evaluate with correction:" "$PACML" evaluate "$tmp/exp.yaml" --json
cp "$tmp/out" "$tmp/corrected.json"
grep -v '^correction:' "$tmp/exp.yaml" > "$tmp/exp-plain.yaml"
expect_ok "evaluate without it" "$PACML" evaluate "$tmp/exp-plain.yaml" --json
# the site's jobs run 1.3-2.5x longer: more GPU-hours per met deadline
[ "$(/usr/bin/python3 -c "import json; c=json.load(open('$tmp/corrected.json'))[0]; p=json.load(open('$tmp/out'))[0]; print(c['gpu_hours_per_met_mean'] > 1.2 * p['gpu_hours_per_met_mean'])")" = "True" ] && pass ||
  fail "the correction did not lengthen the jobs: $(cat "$tmp/corrected.json" | head -12)"
printf 'pacml_correction: 1\nentries:\n  - {model: gpt2, compute: 0}\n' > "$tmp/bad.yaml"
sed 's/c.yaml/bad.yaml/' "$tmp/exp.yaml" > "$tmp/exp-bad.yaml"
expect_input_error "a bad correction file" "bad.yaml:3" "$PACML" evaluate "$tmp/exp-bad.yaml"

# Too little evidence, and bad input.
expect_input_error "too few jobs" "a correction needs at least 100" "$PACML" calibrate --history "$tmp/joined.csv" --min-jobs 100 --out "$tmp/none.yaml"
[ ! -e "$tmp/none.yaml" ] && pass || fail "a refused fit wrote a file"
sed '5s/COMPLETED,[0-9]*/COMPLETED,soon/' "$tmp/joined.csv" > "$tmp/bad.csv"
expect_input_error "a bad joined line" "bad.csv:5: elapsed" "$PACML" calibrate --history "$tmp/bad.csv" --out "$tmp/none.yaml"
sed '4s/^4102|/4102|x|/' "$FIX/sacct.txt" > "$tmp/sacct-bad.txt"
expect_input_error "a bad sacct line" "sacct-bad.txt:4: expected 7" "$PACML" history join --log "$FIX/decisions.jsonl" --sacct "$tmp/sacct-bad.txt"
printf '{"outcome":"placed"\n' > "$tmp/log-bad.jsonl"
expect_input_error "a bad decision line" "log-bad.jsonl:1: not a JSON object" "$PACML" history join --log "$tmp/log-bad.jsonl" --sacct "$FIX/sacct.txt"
expect_input_error "join without --sacct" "--sacct" "$PACML" history join --log "$FIX/decisions.jsonl"
expect_input_error "--history with --log" "not both" "$PACML" calibrate --history "$tmp/joined.csv" --log x --out "$tmp/x.yaml"
expect_input_error "--startup without --history" "applies to --history only" "$PACML" calibrate --startup 3
expect_input_error "history frobnicate" "unknown verb" "$PACML" history frobnicate
expect_input_error "an unknown option" "--frob" "$PACML" history simulate --frob

# The loop, small: outputs written, the same seed the same numbers.
expect_ok "history simulate" "$PACML" history simulate --jobs 600 --settled-after 20 --window 100 --out "$tmp/sim"
cp "$tmp/out" "$tmp/sim1.txt"
for f in history.csv history.json history.gp history.dat; do [ -s "$tmp/sim/$f" ] && pass || fail "simulate: no $f"; done
[ "$(json_get "$tmp/sim/history.json" "sorted(d['replays']) == ['learns', 'never', 'truth'] and d['replays']['learns']['refits'] > 0")" = "True" ] || fail "history.json: $(cat "$tmp/sim/history.json")"
expect_ok "history simulate again" "$PACML" history simulate --jobs 600 --settled-after 20 --window 100
cmp -s "$tmp/out" "$tmp/sim1.txt" && pass || fail "the same seed printed different numbers"

finish
