#!/bin/sh
# Command-line parsing of `pacml` (CLI11 behind core/util/args.h): --help of
# every command and verb, and usage errors -- a stray argument, an unknown
# option, a misspelt command or verb, a missing value -- exit 2 with a
# message and a hint, and print nothing on stdout.
set -u
. "$(dirname "$0")/cli_lib.sh"
TINY=$SRC/tests/fixtures/tiny.txt

# expect_help WHAT ARGS...: exit 0 and "usage: pacml WHAT" on stdout
expect_help() {
  what=$1; shift
  if ! "$PACML" "$@" >"$tmp/out" 2>"$tmp/err"; then
    fail "pacml $* (exit $?): $(cat "$tmp/err")"
  elif ! grep -q "usage: pacml $what" "$tmp/out"; then
    fail "pacml $* shows no 'usage: pacml $what': $(head -3 "$tmp/out")"
  else
    pass
  fi
}

# expect_usage_error DESCRIPTION FRAGMENT... -- ARGS...: exit exactly 2, every
# FRAGMENT on stderr, nothing on stdout (no half-run command)
expect_usage_error() {
  desc=$1; shift
  fragments=""
  while [ "$1" != "--" ]; do fragments="$fragments
$1"; shift; done
  shift
  "$PACML" "$@" >"$tmp/out" 2>"$tmp/err"
  code=$?
  if [ "$code" -ne 2 ]; then fail "$desc: exit $code, not 2: $(cat "$tmp/err")"; return; fi
  if [ -s "$tmp/out" ]; then fail "$desc: printed on stdout: $(head -3 "$tmp/out")"; return; fi
  missing=$(printf '%s\n' "$fragments" | while IFS= read -r f; do
    [ -z "$f" ] || grep -qF -- "$f" "$tmp/err" || echo "'$f'"
  done)
  if [ -n "$missing" ]; then fail "$desc: $missing not in: $(cat "$tmp/err")"; else pass; fi
}

# --help of every command `pacml --help` lists, and of every verb.
"$PACML" --help >"$tmp/commands" || fail "pacml --help"
commands=$(awk '/^  [a-z]/ { print $1 }' "$tmp/commands")
[ "$(echo "$commands" | wc -w)" -ge 10 ] || fail "pacml --help lists too few commands: $commands"
for cmd in $commands; do
  if [ "$cmd" = train ] && [ ! -x "$(dirname "$PACML")/pacml-train" ]; then
    echo "SKIP: pacml train --help (built without LibTorch: no pacml-train)"
    continue
  fi
  expect_help "$cmd" "$cmd" --help
  expect_help "$cmd" "$cmd" -h
done
for cmd in graph node history device; do
  "$PACML" $cmd --help >"$tmp/verbs" || fail "pacml $cmd --help"
  for verb in $(awk '/^verbs:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' "$tmp/verbs"); do
    expect_help "$cmd $verb" $cmd "$verb" --help
  done
done
"$PACML" estimate --help >"$tmp/out"
grep -q -- "--topology CxRxS" "$tmp/out" && grep -q "(default: auto)" "$tmp/out" \
  || fail "estimate --help lacks an option's metavar or default: $(cat "$tmp/out")"
# replay --help: the two replays, and which options apply to which (one table in cmd_replay.cpp)
"$PACML" replay --help >"$tmp/out"
grep -q "on GPUs with the physical model" "$tmp/out" \
  && grep -A1 -- "--cluster FILE" "$tmp/out" | grep -q "\[world gpu\]" \
  && grep -A1 -- "--gpu-scale X" "$tmp/out" | grep -q "\[--world paper\]" \
  || fail "replay --help lacks the two replays or the option marks: $(cat "$tmp/out")"

# Stray arguments.
expect_usage_error "stray arguments" "unexpected argument 'x'" "takes no arguments" -- topology x y
expect_usage_error "single-dash option" "-json" "unknown option" "did you mean '--json'?" -- \
  estimate --graph "$TINY" -json
expect_usage_error "second experiment file" "unexpected argument 'b.yaml'" "arguments: EXPERIMENT.yaml" -- simulate a.yaml b.yaml
expect_usage_error "second trace" "unexpected argument 'b.csv'" -- replay a.csv b.csv --format swf
# Unknown options.
expect_usage_error "unknown option" "--grph: unknown option" "did you mean '--graph'?" -- \
  estimate --grph x
expect_usage_error "unknown option with =" "--jsn: unknown option" "did you mean '--json'?" -- \
  topology --jsn=1
expect_usage_error "unknown option, no hint" "--frobnicate: unknown option (see --help)" -- \
  topology --frobnicate
# Misspelt commands and verbs.
expect_usage_error "misspelt command" "unknown command 'estimat'" "did you mean 'estimate'?" -- estimat
expect_usage_error "unknown command" "unknown command 'frobnicate'" -- frobnicate
expect_usage_error "misspelt verb" "unknown verb 'inf'" "did you mean 'info'?" -- graph inf
# Missing or misplaced values.
expect_usage_error "option without value" "--graph: needs a value (FILE)" -- estimate --graph
expect_usage_error "flag with a value" "--json: is a flag and takes no value" -- topology --json=yes
expect_usage_error "missing argument" "missing argument TRACE" -- replay --format swf

# Accepted forms: --name=VALUE, and the last of a repeated option wins.
if "$PACML" topology --topology=2x2x2 --topology 3x2x2 --json >"$tmp/out" 2>"$tmp/err" \
  && grep -q '"shape": "3x2x2"' "$tmp/out"; then pass; else fail "--name=VALUE / repeated option: $(cat "$tmp/err" "$tmp/out")"; fi
if "$PACML" estimate "--graph=$TINY" --action 4 --json >"$tmp/out" 2>"$tmp/err"; then pass; else
  fail "--graph=FILE: $(cat "$tmp/err")"; fi
if "$PACML" estimate --graph "$TINY" --beta -0.5 >"$tmp/out" 2>"$tmp/err"; then
  fail "--beta -0.5 accepted"
elif grep -q "beta" "$tmp/err"; then pass; else fail "--beta -0.5: $(cat "$tmp/err")"; fi

finish
