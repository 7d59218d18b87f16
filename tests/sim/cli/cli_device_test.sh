#!/bin/sh
# `pacml device list|show|fit` and `pacml calibrate --probe` (issue 29): the
# fit on recorded probe output (tests/fixtures/probe/cpu-quick.csv, a CPU's
# real measurements), the fitted file pacml reads back, the report files, and
# bad input refused with where.
. "$(dirname "$0")/cli_lib.sh"
PROBE=$SRC/tests/fixtures/probe/cpu-quick.csv

expect_ok "device list" "$PACML" device list
grep -q "^h200 .*H200-141GB .*141" "$tmp/out" || fail "device list: no h200 row: $(cat "$tmp/out")"
expect_ok "device show h200" "$PACML" device show h200
cp "$tmp/out" "$tmp/h200.yaml"
expect_ok "a shown device file loads" "$PACML" device show "$tmp/h200.yaml"
cmp -s "$tmp/out" "$tmp/h200.yaml" && pass || fail "device show of its own output differs"

# The fit: before and after for every configuration, a device file that
# loads, and a smaller step-time error after than before.
expect_ok "device fit" "$PACML" device fit "$PROBE" --device a100 --out "$tmp/fitted.yaml" --report "$tmp/report"
grep -q "^resnet50 batch 2 image 64 fp32 " "$tmp/out" || fail "fit table: no resnet50 row: $(cat "$tmp/out")"
before=$(sed -n 's/^before: .*median |error| \([0-9.]*\)%.*/\1/p' "$tmp/out")
after=$(sed -n 's/^fitted: .*median |error| \([0-9.]*\)%.*/\1/p' "$tmp/out")
[ -n "$before" ] && [ -n "$after" ] && awk "BEGIN { exit !($after < $before / 2) }" && pass ||
  fail "median step-time error before '$before', fitted '$after'"
expect_ok "the fitted file loads" "$PACML" device show "$tmp/fitted.yaml"
grep -q '^name: "A100-SXM4-80GB (probe-fitted)"' "$tmp/out" || fail "fitted name: $(head -3 "$tmp/out")"
grep -q "^# Fitted by .pacml device fit. on " "$tmp/fitted.yaml" || fail "the fitted file says where it comes from"
for f in probe.csv probe.json probe.gp probe.dat; do [ -s "$tmp/report/$f" ] && pass || fail "report: no $f"; done
[ "$(json_get "$tmp/report/probe.json" "len(d['rows']) == 5 and all(r['fitted']['predicted_seconds'] > 0 for r in d['rows'])")" = "True" ] || fail "probe.json rows"
expect_ok "an estimate on the fitted device" "$PACML" estimate --model resnet50 --batch 2 --image-size 64 --device "$tmp/fitted.yaml" --gpus 1 --json
[ "$(json_get "$tmp/out" "d[0]['status']")" = "ok" ] || fail "estimate on the fitted device"

# The probe section of calibrate: the same comparison.
expect_ok "calibrate --probe" "$PACML" calibrate --probe "$PROBE" --device a100 --json
[ "$(json_get "$tmp/out" "d['before'] == 'A100-SXM4-80GB' and len(d['rows']) == 5")" = "True" ] || fail "calibrate --probe JSON"

# Bad input.
expect_input_error "fit without --out" "--out" "$PACML" device fit "$PROBE" --device a100
expect_input_error "a probe of a device no file describes" "no built-in device file describes" \
  "$PACML" device fit "$PROBE" --out "$tmp/x.yaml"
printf '# pacml_probe: 1\nkind,model,batch,seq_len,image_size,layers,precision,attention,checkpointing,optimizer,builder,seconds,peak_bytes,rate,status\nstep,gpt2,8,1024,,,bf16,flash,no,adamw,,0.1,,,ok\n' > "$tmp/bad.csv"
expect_input_error "a bad probe row" "bad.csv:3" "$PACML" device fit "$tmp/bad.csv" --device h200 --out "$tmp/x.yaml"
printf '# pacml_probe: 1\nkind,model,batch,seq_len,image_size,layers,precision,attention,checkpointing,optimizer,builder,seconds,peak_bytes,rate,status\nstep,gpt2,8,,,,,,,,,,,,skipped\n' > "$tmp/none.csv"
expect_input_error "a probe without a timed step" "no training step ran" "$PACML" device fit "$tmp/none.csv" --device h200 --out "$tmp/x.yaml"
[ ! -e "$tmp/x.yaml" ] && pass || fail "a refused fit wrote a file"
expect_input_error "calibrate --device without --probe" "applies to --probe only" "$PACML" calibrate --device h200
expect_input_error "device show of a missing file" "neither built in" "$PACML" device show "$tmp/none.yaml"
expect_input_error "device frobnicate" "unknown verb" "$PACML" device frobnicate

# --device is the cluster's GPU too: its memory decides the verdict.
expect_ok "estimate on one H200" "$PACML" estimate --model gpt2-xl --batch 16 --precision bf16 --device h200 --gpus 1 --json
[ "$(json_get "$tmp/out" "d[0]['memory']['verdict'] < 141e9 and d[0]['status'] == 'ok'")" = "True" ] ||
  fail "gpt2-xl at batch 16 in bf16 fits one H200: $(cat "$tmp/out" | head -30)"

finish
