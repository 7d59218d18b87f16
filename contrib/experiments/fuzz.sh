#!/bin/sh
# Fuzzing (doc/RESULTS.md §11): configures and builds a fuzzing tree
# (OUT_DIR/build: ./configure --enable-fuzzing CXX=clang++ CC=clang), runs
# `make fuzz FUZZ_SECONDS=S FUZZ_OUT=OUT_DIR/fuzz` (every target of
# tests/fuzz/pacml-fuzz, S seconds each, one after the other: about S x the
# number of targets, plus the build) and makes the block "fuzz table"
# (fuzz_table.py, from OUT_DIR/fuzz/summary.md and its logs alone), ending
# with the commit, date and machine.
#
# usage: contrib/experiments/fuzz.sh [OUT_DIR] [--table-only] [--doc FILE]
#   OUT_DIR       default: fuzz-results
#   --table-only  no build and no fuzzing: the block again from OUT_DIR/fuzz
#                 of an earlier run (give the FUZZ_SECONDS it ran with)
#   --doc FILE    replace that block of FILE
#   FUZZ_SECONDS  seconds per target (default 60)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/results_lib.sh"
top=$(cd "$here/../.." && pwd)
table_only=0
for a in "$@"; do  # takes --table-only out of the arguments
  shift
  if [ "$a" = --table-only ]; then table_only=1; else set -- "$@" "$a"; fi
done
parse_out_and_doc fuzz.sh fuzz-results "$@"
seconds=${FUZZ_SECONDS:-60}
say() { echo "fuzz.sh: $*" >&2; }
command -v clang++ > /dev/null || { say "clang++ is absent: the fuzzing build needs it"; exit 1; }
mkdir -p "$out/build"
out=$(cd "$out" && pwd)
status=0
if [ $table_only = 0 ]; then
  if [ ! -f "$out/build/Makefile" ]; then
    say "configure --enable-fuzzing CXX=clang++ CC=clang in $out/build"
    [ -x "$top/configure" ] || (cd "$top" && autoreconf -fi > /dev/null)
    (cd "$out/build" && "$top/configure" -q --enable-fuzzing CXX=clang++ CC=clang)
  fi
  say "building tests/fuzz/pacml-fuzz"
  make -C "$out/build" -s -j"$(nproc)" tests/fuzz/pacml-fuzz
  say "make fuzz FUZZ_SECONDS=$seconds (every target, one after the other)"
  rm -rf "$out/fuzz"
  make -C "$out/build" -s fuzz FUZZ_SECONDS="$seconds" FUZZ_OUT="$out/fuzz" > "$out/fuzz.txt" 2>&1 || status=$?
  git -C "$here" rev-parse --short HEAD > "$out/fuzz/commit.txt" 2>/dev/null || echo '?' > "$out/fuzz/commit.txt"
else
  grep -q ' CRASH ' "$out/fuzz/summary.md" && status=1
fi
{
  python3 "$here/fuzz_table.py" "$out/fuzz"
  echo
  detail="clang $(clang++ --version | sed -n 's/.*clang version \([0-9.]*\).*/\1/p' | head -n 1), libFuzzer, $seconds s per target, at nice 10"
  [ $table_only = 1 ] && detail="$detail; fuzzed at $(cat "$out/fuzz/commit.txt" 2>/dev/null || echo '?'), this block made again from that run's output (--table-only)"
  made_by_line contrib/experiments/fuzz.sh "$detail"
} > "$out/table.md"
cat "$out/table.md"
write_block "fuzz table" "$out/table.md"
[ $status = 0 ] || say "make fuzz found a crash (exit $status): $out/fuzz/artifacts"
exit $status
