#!/bin/sh
# ElasticFlow's traces replayed on GPU clusters (doc/RESULTS.md §3): every
# trace of ElasticFlow's archive (cluster01-10 and 195job) on its two
# clusters, 32 GPUs (dgx-a100-4x8) and 128 GPUs (dgx-a100-16x8), with
# immediate and queue admission, under min_feasible, requested, para_max and
# the learned policy pacml:default; cluster10 once more without --cluster (the
# paper's cluster of one-A100 servers); and the min_feasible replays of the
# ten cluster traces on 128 GPUs, timed. It writes every run's JSON,
# timing.json and table.md (made by elasticflow_table.py from those files
# alone; ElasticFlow's own figures in it are its paper's, a cited constant of
# that script).
#
# usage: contrib/experiments/elasticflow-replay.sh [OUT_DIR] [--doc FILE]
#   OUT_DIR     default: elasticflow-results
#   --doc FILE  also replace the block between "<!-- elasticflow table -->" and
#               "<!-- end of elasticflow table -->" in FILE with table.md
#   PACML       the pacml binary (default: pacml on PATH)
#   PACML_SHARED_DATA   where elasticflow/elasticflow-traces.tar.gz is
#                       (default: ../shared/data next to the source tree)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/results_lib.sh"
pacml=${PACML:-pacml}
parse_out_and_doc elasticflow-replay.sh elasticflow-results "$@"
elasticflow_archive "$here"
say() { echo "elasticflow-replay.sh: $*" >&2; }
if [ ! -f "$archive" ]; then
  say "$archive is absent: the replays need ElasticFlow's traces (set PACML_SHARED_DATA)"
  exit 1
fi
mkdir -p "$out"
unpack_elasticflow_traces

policies=min_feasible,requested,para_max,pacml:default
for t in cluster01 cluster02 cluster03 cluster04 cluster05 cluster06 cluster07 cluster08 \
         cluster09 cluster10 195job; do
  file=$(trace_file $t)
  [ -n "$file" ] || { say "no $t.csv in $archive"; exit 1; }
  for cluster in dgx-a100-4x8 dgx-a100-16x8; do
    say "$t on $cluster"
    "$pacml" replay "$file" --format elasticflow --cluster $cluster --admission both \
      --policies "$policies" --json > "$out/$t-$cluster.json"
  done
done
say "cluster10 on the paper's cluster (no --cluster)"
"$pacml" replay "$(trace_file cluster10)" --format elasticflow --admission both \
  --policies "$policies" --json > "$out/cluster10-paper.json"

# The ten cluster traces under min_feasible alone on 128 GPUs, both
# admissions: wall and CPU seconds of the replays together.
say "timing min_feasible on 128 GPUs"
python3 - "$pacml" "$out/timing.json" "$traces" <<'EOF'
import glob, json, os, resource, subprocess, sys, time
pacml, out, traces = sys.argv[1:]
names = [f"cluster{i:02d}" for i in range(1, 11)]
files = [glob.glob(f"{traces}/**/{n}.csv", recursive=True)[0] for n in names]
start, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
for f in files:
    subprocess.run([pacml, "replay", f, "--format", "elasticflow", "--cluster", "dgx-a100-16x8",
                    "--admission", "both", "--policies", "min_feasible", "--json"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall, end = time.monotonic() - wall, resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (end.ru_utime - start.ru_utime) + (end.ru_stime - start.ru_stime)
json.dump({"traces": names, "cluster": "dgx-a100-16x8", "policy": "min_feasible",
           "admission": "both", "wall_s": wall, "cpu_s": cpu, "cores": os.cpu_count()},
          open(out, "w"), indent=2)
EOF

# The table, from those files alone.
table=$out/table.md
python3 "$here/elasticflow_table.py" "$out" > "$table"
{
  echo
  made_by_line contrib/experiments/elasticflow-replay.sh
} >> "$table"
cat "$table"
[ -z "$doc" ] || python3 "$here/replace_block.py" "$doc" "elasticflow table" "$table"
