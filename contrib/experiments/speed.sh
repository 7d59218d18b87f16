#!/bin/sh
# pacml's speed (doc/RESULTS.md §10), into OUT_DIR: `pacml bench --dir
# PIPEDREAM --json` (bench.json: the estimator on the five paper graphs at
# a = 16) and `pacml bench-sim` (bench-sim.txt: the paper episode, the RAMP
# trace, ElasticFlow's traces and the generated million jobs, as printed;
# `--only traces,generated` is the last two of those). speed_table.py makes
# the blocks "bench" and "bench-sim" from those files alone; each ends with the
# commit, date, machine and the load average, since timings depend on what
# else runs on the machine. About 2 minutes.
#
# usage: contrib/experiments/speed.sh [OUT_DIR] [--doc FILE]
#   OUT_DIR     default: speed-results
#   --doc FILE  replace those two blocks of FILE
#   PACML       the pacml binary (default: pacml on PATH)
#   PACML_SHARED_DATA   where pipedream/ and elasticflow/ are (default:
#                       ../shared/data next to the source tree)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/results_lib.sh"
pacml_binary
parse_out_and_doc speed.sh speed-results "$@"
shared_data "$here"
if [ ! -d "$PACML_SHARED_DATA/pipedream" ]; then
  echo "speed.sh: $PACML_SHARED_DATA/pipedream is absent: pacml bench needs PipeDream's profiles (set PACML_SHARED_DATA)" >&2
  exit 1
fi
mkdir -p "$out"
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "speed.sh: pacml bench --json" >&2
before=$(load)
"$pacml" bench --dir "$PACML_SHARED_DATA/pipedream" --json > "$out/bench.json"
echo "speed.sh: pacml bench-sim (about 2 minutes)" >&2
(cd "$top" && "$pacml" bench-sim) > "$out/bench-sim.txt"
made=$(made_by_line contrib/experiments/speed.sh)
detail="single-threaded timings; load average $before before, $(load) after (1, 5, 15 minutes; other work on the machine slows them)"
for part in bench bench-sim; do
  {
    python3 "$here/speed_table.py" $part "$out"
    echo
    echo "${made%.}; $detail."
  } > "$out/$part.md"
  cat "$out/$part.md"
  write_block "$part" "$out/$part.md"
done
