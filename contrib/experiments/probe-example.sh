#!/bin/sh
# README's probe example ("Grounding the model in your GPUs"): `pacml
# calibrate --probe` on the one probe output the repository ships
# (tests/fixtures/probe/cpu-quick.csv, a CPU's, recorded where no GPU was at
# hand) against the A100's device file, before and after the fit: the table
# of configurations (time columns: a CPU probe measures no GPU memory) and the
# two summary lines, without the fitted constants.
#
# usage: contrib/experiments/probe-example.sh [OUT_DIR] [--doc FILE]
#   OUT_DIR     where calibrate.txt and example.md go (default: probe-example)
#   --doc FILE  also replace the block between "<!-- probe example -->" and
#               "<!-- end of probe example -->" in FILE
#   PACML       the pacml binary (default: pacml on PATH)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/results_lib.sh"
pacml=${PACML:-pacml}
parse_out_and_doc probe-example.sh probe-example "$@"
mkdir -p "$out"
"$pacml" calibrate --probe "$here/../../tests/fixtures/probe/cpu-quick.csv" --device a100 \
  > "$out/calibrate.txt"
example=$out/example.md
{
  echo '```'
  # the configuration table (from its header to the blank line after it) and
  # the before/after summary
  awk '/^configuration/ { on = 1 } on && /^$/ { on = 0 } on' "$out/calibrate.txt" | cut -c1-94 | sed 's/ *$//'
  grep -E '^(before|fitted): step time' "$out/calibrate.txt"
  echo '```'
  echo
  made_by_line contrib/experiments/probe-example.sh
} > "$example"
cat "$example"
[ -z "$doc" ] || python3 "$here/replace_block.py" "$doc" "probe example" "$example"
