#!/bin/sh
# Runs every pacml fuzz target (or the named ones) for SECONDS each, one after
# the other at low priority, and prints a table: target, seconds, executions,
# corpus, coverage, result. Used by `make fuzz` / `make fuzz-smoke`.
#
#   run-fuzz.sh BINARY FUZZ_SRCDIR OUTDIR SECONDS [TARGET...]
#
# Seeds come from FUZZ_SRCDIR/corpus/<target> and FUZZ_SRCDIR/regressions/<target>
# (read only); new inputs go to OUTDIR/corpus/<target>, logs to OUTDIR/logs and
# crash reproducers to OUTDIR/artifacts. Exits 1 if any target crashed.
set -u
bin=$1 src=$2 out=$3 seconds=$4
shift 4
targets=${*:-$("$bin" -list_targets)}
mkdir -p "$out/logs" "$out/artifacts"
summary="$out/summary.md"
printf '| target | seconds | executions | exec/s | corpus files | coverage | result |\n' >"$summary"
printf '|---|---|---|---|---|---|---|\n' >>"$summary"
failed=0
for t in $targets; do
  mkdir -p "$out/corpus/$t"
  dirs="$out/corpus/$t"
  for d in "$src/corpus/$t" "$src/regressions/$t"; do
    [ -d "$d" ] && dirs="$dirs $d"
  done
  log="$out/logs/$t.log"
  start=$(date +%s)
  # shellcheck disable=SC2086
  nice -n 10 "$bin" -target="$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=8192 -print_final_stats=1 -artifact_prefix="$out/artifacts/$t-" $dirs >"$log" 2>&1
  rc=$?
  elapsed=$(($(date +%s) - start))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  corpus=$(find "$out/corpus/$t" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    result=ok
  else
    result="CRASH (exit $rc; see $log)"
    failed=1
  fi
  row="| $t | $elapsed | ${execs:-?} | ${rate:-?} | $corpus | ${cov:-?} | $result |"
  echo "$row" >>"$summary"
  echo "$row"
  if [ "$rc" -ne 0 ]; then
    grep -E 'ERROR|SUMMARY|uncaught|what\(\)|Test unit written|==[0-9]+==' "$log" | head -20 >&2
  fi
done
echo "fuzz summary: $summary"
exit $failed
