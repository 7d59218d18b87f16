#!/bin/sh
# The fitted workload replayed under the baselines (doc/RESULTS.md §4):
# `pacml workload run contrib/workloads/elasticflow-01-05.yaml --cluster
# ramp-a100-16x8 --load 1 --jobs 2000 --seeds 5`, its printed table (run.txt)
# and the same run's JSON (run.json); table.md (workload_table.py, from those
# two files alone) is the table and a sentence comparing min_feasible with
# requested. Needs nothing outside the repository.
#
# usage: contrib/experiments/fitted-workload.sh [OUT_DIR] [--doc FILE]
#   OUT_DIR     default: workload-results
#   --doc FILE  replace the block "<!-- fitted workload -->" ... "<!-- end of
#               fitted workload -->" of FILE with table.md
#   PACML       the pacml binary (default: pacml on PATH)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/results_lib.sh"
pacml_binary
parse_out_and_doc fitted-workload.sh workload-results "$@"
mkdir -p "$out"
run() {
  (cd "$top" && "$pacml" workload run contrib/workloads/elasticflow-01-05.yaml \
    --cluster ramp-a100-16x8 --load 1 --jobs 2000 --seeds 5 "$@")
}
echo "fitted-workload.sh: pacml workload run elasticflow-01-05.yaml (text, then --json)" >&2
run > "$out/run.txt"
run --json > "$out/run.json"
{
  python3 "$here/workload_table.py" "$out"
  echo
  made_by_line contrib/experiments/fitted-workload.sh
} > "$out/table.md"
cat "$out/table.md"
write_block "fitted workload" "$out/table.md"
