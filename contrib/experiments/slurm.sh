#!/bin/sh
# The Slurm plugin's figures (doc/RESULTS.md §9), into OUT_DIR:
#   latency-default.json    `plugin/pacml-plugin-bench --policy pacml:default
#                           --json`: job_submit()'s decision latency with the
#                           learned GPU policy (the real job_submit_pacml.so,
#                           dlopen'd; 2,000 calls);
#   latency-reference.json  the same with --world paper --policy
#                           pacml:reference (the paper's reference profile);
#   soak.log                with --soak only: tests/plugin/slurm_soak.sh's
#                           output. It starts a local Slurm cluster (munge,
#                           slurmctld, 32 slurmd) as root for about 3 minutes:
#                           run it only where no other Slurm test runs.
# slurm_table.py makes the blocks "plugin latency" and (with --soak)
# "slurm soak" from those files alone, each ending with the commit, date and
# machine.
#
# usage: contrib/experiments/slurm.sh [OUT_DIR] [--soak] [--doc FILE]
#   OUT_DIR     default: slurm-results
#   --doc FILE  replace those blocks of FILE
#   PACML       the pacml binary (default: pacml on PATH); the build tree is
#               its folder, where plugin/pacml-plugin-bench is
#   PACML_MODELS_DIR  where the plugin finds pacml:default and pacml:reference
#                     (default: contrib/models of this tree)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/results_lib.sh"
pacml_binary
soak=0
for a in "$@"; do  # takes --soak out of the arguments
  shift
  if [ "$a" = --soak ]; then soak=1; else set -- "$@" "$a"; fi
done
parse_out_and_doc slurm.sh slurm-results "$@"
build=$(dirname "$pacml")
bench=$build/plugin/pacml-plugin-bench
say() { echo "slurm.sh: $*" >&2; }
if [ ! -x "$bench" ]; then
  say "$bench is absent: build pacml (contrib/pacml-dev build) and set PACML to the build tree's pacml"
  exit 1
fi
mkdir -p "$out"
say "pacml-plugin-bench (pacml:default, then the reference profile's pacml:reference)"
# The shipped models, found by name in the source tree (not installed here);
# the plugin logs each decision on stderr.
PACML_MODELS_DIR=${PACML_MODELS_DIR:-$top/contrib/models}
export PACML_MODELS_DIR
"$bench" --policy pacml:default --json > "$out/latency-default.json" 2> "$out/latency-default.log"
"$bench" --world paper --policy pacml:reference --json > "$out/latency-reference.json" \
  2> "$out/latency-reference.log"
made=$(made_by_line contrib/experiments/slurm.sh)
{
  python3 "$here/slurm_table.py" latency "$out"
  echo
  echo "${made%.}; load average $(cut -d' ' -f1-3 /proc/loadavg) (latencies depend on the machine's load)."
} > "$out/latency.md"
cat "$out/latency.md"
write_block "plugin latency" "$out/latency.md"
if [ $soak = 1 ]; then
  say "tests/plugin/slurm_soak.sh $build (about 3 minutes; a local Slurm cluster as root)"
  bash "$top/tests/plugin/slurm_soak.sh" "$build" > "$out/soak.log" 2>&1 || {
    say "the soak failed: $out/soak.log"; exit 1; }
  {
    python3 "$here/slurm_table.py" soak "$out"
    echo
    echo "$made"
  } > "$out/soak.md"
  cat "$out/soak.md"
  write_block "slurm soak" "$out/soak.md"
fi
