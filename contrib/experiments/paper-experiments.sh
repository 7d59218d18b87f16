#!/bin/sh
# The paper's experiment (doc/RESULTS.md §7 and §8), `pacml evaluate ...
# --json` into OUT_DIR:
#   paper.json            contrib/experiments/paper.yaml: the shipped
#                         pacml:reference and every baseline, beta A-D, 10 seeds;
#   reference-A.json      the same with --policies pacml:reference-A --beta-dists A;
#   reference-B.json      --policies pacml:reference-B --beta-dists B;
#   paper-physical.json   contrib/experiments/paper-physical.yaml --bound:
#                         pacml:physical, every baseline and the share of jobs
#                         no degree serves on an empty cluster;
#   physical-D.json       --policies pacml:physical-D --beta-dists D.
# paper_table.py makes from those files alone the blocks "paper baselines"
# (§7), "paper learned" and "paper physical" (§8), each ending with the
# commit, date and machine.
#
# usage: contrib/experiments/paper-experiments.sh [OUT_DIR] [--doc FILE]
#   OUT_DIR     default: paper-results
#   --doc FILE  replace those three blocks of FILE
#   PACML       the pacml binary (default: pacml on PATH)
#   PACML_SHARED_DATA   where pipedream/ is (default: ../shared/data next to
#                       the source tree)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/results_lib.sh"
pacml_binary
parse_out_and_doc paper-experiments.sh paper-results "$@"
shared_data "$here"
say() { echo "paper-experiments.sh: $*" >&2; }
if [ ! -d "$PACML_SHARED_DATA/pipedream" ]; then
  say "$PACML_SHARED_DATA/pipedream is absent: the paper's experiment needs PipeDream's profiles (set PACML_SHARED_DATA)"
  exit 1
fi
mkdir -p "$out"
evaluate() {  # NAME EXPERIMENT [OPTIONS...]
  name=$1 file=$2
  shift 2
  say "pacml evaluate contrib/experiments/$file $* ($name.json)"
  (cd "$top" && "$pacml" evaluate "contrib/experiments/$file" --quiet --json "$@") > "$out/$name.json"
}
evaluate paper paper.yaml
evaluate reference-A paper.yaml --policies pacml:reference-A --beta-dists A
evaluate reference-B paper.yaml --policies pacml:reference-B --beta-dists B
evaluate paper-physical paper-physical.yaml --bound
evaluate physical-D paper-physical.yaml --policies pacml:physical-D --beta-dists D

made=$(made_by_line contrib/experiments/paper-experiments.sh)
for part in baselines learned physical; do
  {
    python3 "$here/paper_table.py" $part "$out"
    echo
    echo "$made"
  } > "$out/$part.md"
  cat "$out/$part.md"
  write_block "paper $part" "$out/$part.md"
done
