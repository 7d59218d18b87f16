#!/bin/sh
# pacml's speed (doc/RESULTS.md §10), into OUT_DIR: `pacml bench --dir
# PIPEDREAM --json` (bench.json: the estimator on the five paper graphs at
# a = 16) and `pacml bench-sim` (bench-sim.txt: the paper episode, the RAMP
# trace and ElasticFlow's traces with --only paper,ramp,traces, then the
# generated million jobs alone with --only generated, as printed).
# speed_table.py makes the blocks "bench" and "bench-sim" from those files
# alone; each ends with the commit, date, machine and the load average, since
# timings depend on what else runs on the machine. About a minute.
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
# bench-sim in two processes, so that the generated jobs' peak RSS is theirs
# alone (the process's peak; the traces' replay would set it otherwise).
: > "$out/bench-sim.txt"
for only in paper,ramp,traces generated; do
  echo "speed.sh: pacml bench-sim --only $only" >&2
  echo "\$ pacml bench-sim --only $only" >> "$out/bench-sim.txt"
  (cd "$top" && "$pacml" bench-sim --only $only) >> "$out/bench-sim.txt"
done
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
