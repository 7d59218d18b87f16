#!/bin/sh
# The built-in default experiment (doc/RESULTS.md §1 and README.md's main
# result): `pacml evaluate` with no file, then, from its output alone,
#   results.md  its printed table and sentences comparing the learned policy
#               with capped:0.3 (the baseline that may turn jobs away too) and
#               with the best baseline that starts every job it can
#               (default_experiment_table.py), for doc/RESULTS.md §1;
#   readme.md   the excerpt README.md shows;
# each ending with the commit, date and machine. Needs nothing outside the
# repository.
#
# usage: contrib/experiments/default-experiment.sh [OUT_DIR] [--doc FILE]...
#   OUT_DIR     default: default-results
#   --doc FILE  replace the blocks "<!-- default experiment -->" (results.md)
#               and "<!-- main result -->" (readme.md) that FILE has, up to
#               their "<!-- end of NAME -->", and copy the two plots the docs
#               show into doc/img/
#   PACML       the pacml binary (default: pacml on PATH)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/results_lib.sh"
pacml=${PACML:-pacml}
parse_out_and_doc default-experiment.sh default-results "$@"
mkdir -p "$out"
echo "default-experiment.sh: pacml evaluate (the built-in default experiment)" >&2
"$pacml" evaluate --out "$out/default" > "$out/evaluate.txt"

made=$(made_by_line contrib/experiments/default-experiment.sh)
{
  echo '```'
  cat "$out/evaluate.txt"
  echo '```'
  echo
  python3 "$here/default_experiment_table.py" "$out/default/summary.json"
  echo
  echo "$made"
} > "$out/results.md"
{
  echo '```'
  # The table's header and the rows README.md shows: the learned policy, the
  # baseline that may turn jobs away, stock Slurm's and the best of the others.
  awk '/^policy / || /^-----/ { print; next }
       /^(pacml:default|capped:0.3|requested|min_feasible) +immediate / { print }
       /^(pacml:default|capped:0.3|min_feasible|fixed:8) +queue / { print }' "$out/evaluate.txt"
  echo '```'
  echo
  echo "$made"
} > "$out/readme.md"
cat "$out/results.md"

for d in $docs; do
  grep -q '<!-- default experiment -->' "$d" &&
    python3 "$here/replace_block.py" "$d" "default experiment" "$out/results.md"
  grep -q '<!-- main result -->' "$d" &&
    python3 "$here/replace_block.py" "$d" "main result" "$out/readme.md"
done
if [ -n "$docs" ]; then
  cp "$out/default/deadline_met_rate.png" "$here/../../doc/img/default-deadline_met_rate.png"
  cp "$out/default/gpu_hours_per_met.png" "$here/../../doc/img/default-gpu_hours_per_met.png"
fi
