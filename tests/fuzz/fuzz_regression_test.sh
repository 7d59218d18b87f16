#!/bin/sh
# make check: replays the seed corpora and the committed crash reproducers of
# every fuzz target through tests/fuzz/pacml-fuzz (the libFuzzer binary in an
# --enable-fuzzing build, the plain replay driver otherwise). A reproducer
# that crashes again means a fixed bug came back.
set -u
top=${PACML_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${PACML_FUZZ_BIN:-tests/fuzz/pacml-fuzz}
passed=0 failed=0
for t in $("$bin" -list_targets); do
  files=$(find "$top/tests/fuzz/corpus/$t" "$top/tests/fuzz/regressions/$t" -type f 2>/dev/null | sort)
  if [ -z "$files" ]; then
    echo "FAIL: $t: no seed corpus in tests/fuzz/corpus/$t"
    failed=$((failed + 1))
    continue
  fi
  # shellcheck disable=SC2086
  if "$bin" -target="$t" $files >"fuzz-replay-$t.log" 2>&1; then
    echo "PASS: $t ($(echo "$files" | wc -l) inputs)"
    passed=$((passed + 1))
  else
    echo "FAIL: $t"
    tail -20 "fuzz-replay-$t.log"
    failed=$((failed + 1))
  fi
  rm -f "fuzz-replay-$t.log"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
