# Shared by the command-line test scripts (sourced, not run): where pacml and
# the data are, a scratch folder, and the checks. Each check counts a pass or
# prints "FAIL: ..."; `finish` prints the closing "N passed, N failed" line
# and sets the exit status.
PACML=${PACML:-./pacml}
SRC=${PACML_SOURCE_DIR:-.}
DATA=${PACML_SHARED_DATA:-$SRC/../shared/data}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
passed=0

pass() { passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_ok DESCRIPTION COMMAND...: exit 0 (stdout in $tmp/out, stderr in $tmp/err)
expect_ok() {
  desc=$1; shift
  if "$@" >"$tmp/out" 2>"$tmp/err"; then pass; else fail "$desc (exit $?): $(cat "$tmp/err")"; fi
}

# expect_failure_code MAX DESCRIPTION FRAGMENT COMMAND...: an exit code from 1
# (or exactly 2 when MAX is "2only") up to 2 — anything above is a crash —
# and FRAGMENT on stderr.
expect_failure_code() {
  max=$1; desc=$2; fragment=$3; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  code=$?
  if [ "$code" -eq 0 ]; then fail "$desc: exit 0"; return; fi
  if [ "$max" = 2only ] && [ "$code" -ne 2 ]; then
    fail "$desc: exit $code (want 2): $(cat "$tmp/err")"; return
  fi
  if [ "$code" -gt 2 ]; then fail "$desc: exit $code (crash?): $(cat "$tmp/err")"; return; fi
  if grep -qF -- "$fragment" "$tmp/err"; then pass; else fail "$desc: '$fragment' not in: $(cat "$tmp/err")"; fi
}

# expect_error DESCRIPTION FRAGMENT COMMAND...: exit 1 or 2, FRAGMENT on stderr
expect_error() { expect_failure_code 2 "$@"; }
# expect_input_error DESCRIPTION FRAGMENT COMMAND...: bad input: exit exactly 2
expect_input_error() { expect_failure_code 2only "$@"; }

json_get() {  # json_get FILE PYTHON-EXPRESSION-ON-d
  /usr/bin/python3 -c "import json,sys; d=json.load(open('$1')); print($2)"
}

finish() {
  echo "$passed passed, $failures failed"
  [ "$failures" -eq 0 ]
}
