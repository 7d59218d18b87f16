#!/bin/sh
# The learned GPU policy on what its training never saw (doc/RESULTS.md §2):
# ElasticFlow's cluster06-09 and 195-job traces replayed on 32 and 128 GPUs
# (the traces' two clusters), the held-out zoo models (heldout-zoo.yaml) and
# the paper's PipeDream profiles as jobs (heldout-pipedream.yaml), each with
# immediate and queue admission, next to
#   * every baseline that starts what it can (none turns a job away);
#   * capped:X, min_feasible with a cost cap (the only baseline that may turn
#     jobs away, as the learned policy may), X chosen before any held-out
#     replay: the cap of the training teacher's grid (teacher_caps in
#     contrib/train/gpu-default.yaml) with the best mean deadline-met over
#     that file's validation scenarios, the data that chose the learned
#     policy's training run;
#   * three yardsticks that know the trace: the best cap of that grid for
#     that very trace ("cap teacher"), the rollout search (--hindsight 200,
#     each admission) and the capacity bound (--bound).
# It writes every run's JSON, cap-choice.json and table.md (made by
# heldout_table.py from those files alone).
#
# usage: contrib/experiments/heldout.sh [OUT_DIR] [--doc FILE]
#   OUT_DIR     default: heldout-results
#   --doc FILE  also replace the block between "<!-- heldout table -->" and
#               "<!-- end of heldout table -->" in FILE with table.md
#   PACML       the pacml binary (default: pacml on PATH)
#   PACML_SHARED_DATA   where elasticflow/elasticflow-traces.tar.gz is
#                       (default: ../shared/data next to the source tree)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/results_lib.sh"
pacml=${PACML:-pacml}
parse_out_and_doc heldout.sh heldout-results "$@"
elasticflow_archive "$here"
mkdir -p "$out"
say() { echo "heldout.sh: $*" >&2; }

# The training teacher's caps, as policies: capped:0.01,...,capped:2 (its
# last cap, inf, is min_feasible, which every run has).
train=$here/../train/gpu-default.yaml
caps=$(sed -n 's/^teacher_caps: *\[\(.*\)\]/\1/p' "$train" | tr -d ' ' | sed 's/,inf$//; s/\([^,]*\)/capped:\1/g')
[ -n "$caps" ] || { say "no teacher_caps line in $train"; exit 1; }
baselines=requested,min_feasible,para_max,fixed:8,random

# 1. The cap, chosen on gpu-default.yaml's validation scenarios: its clusters
# (ramp-a100-8x8, 64 GPUs; ramp-a100-16x8, 128), loads 0.25, 0.75, 1 and 2
# relative to 128 GPUs (so x 0.5 on 64: load_reference_gpus), both workloads,
# seeds 1000 and 1001, 5,000 jobs, both admissions.
scenario() {  # NAME CLUSTER WORKLOAD LOAD
  mkdir -p "$out/validation"
  cat > "$out/validation/$1.yaml" <<EOF
pacml_experiment: 1
name: validation-$1
cluster: $2
workload: {kind: fitted, params: $3, load: $4, jobs: 5000}
admission: both
order: edf
policies: [pacml:default, min_feasible]
seeds: [1000, 1001]
EOF
  say "validation scenario $1"
  "$pacml" evaluate "$out/validation/$1.yaml" --policies "pacml:default,min_feasible,$caps" \
    --out "$out/validation/$1" > "$out/validation/$1.txt"
}
for workload in elasticflow-01-05 train-zoo; do
  params=$workload
  [ "$workload" = train-zoo ] && params=$here/../workloads/train-zoo.yaml
  for load in 0.25 0.75 1 2; do
    scenario "8x8-$workload-$load" "$here/../train/clusters/ramp-a100-8x8.yaml" "$params" \
      "$(awk -v l="$load" 'BEGIN { print l / 2 }')"
    scenario "16x8-$workload-$load" ramp-a100-16x8 "$params" "$load"
  done
done
python3 - "$out" > "$out/cap-choice.json" <<'EOF'
import glob, json, sys
out = sys.argv[1]
totals, scenarios = {}, 0
for path in sorted(glob.glob(f"{out}/validation/*/summary.json")):
    scenarios += 1
    d = json.load(open(path))
    for g in (d["groups"] if isinstance(d, dict) else d):
        totals.setdefault(g["policy"], []).append(g["deadline_met_rate_mean"])
means = {p: sum(v) / len(v) for p, v in totals.items()}
best = max((p for p in means if p.startswith("capped:")), key=lambda p: means[p])
json.dump({"cap": best[len("capped:"):], "scenarios": scenarios,
           "validation_means": means}, sys.stdout, indent=2)
EOF
cap=capped:$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cap"])' "$out/cap-choice.json")
say "chosen on the validation scenarios: $cap"

# 2. The held-out experiments and traces, every policy and the cap grid.
policies=pacml:default,$baselines,$caps
for e in heldout-zoo heldout-pipedream; do
  if [ $e = heldout-pipedream ] && [ ! -f "$PACML_SHARED_DATA/pipedream/vgg16.txt" ]; then
    say "$PACML_SHARED_DATA/pipedream is absent: skipping the PipeDream profiles (set PACML_SHARED_DATA)"
    continue
  fi
  say "$e"
  "$pacml" evaluate "$here/$e.yaml" --policies "$policies" --out "$out/$e" > "$out/$e.txt"
done
if [ -f "$archive" ]; then
  unpack_elasticflow_traces
  for t in cluster06 cluster07 cluster08 cluster09 195job; do
    file=$(trace_file $t)
    for cluster in dgx-a100-4x8 dgx-a100-16x8; do
      say "$t on $cluster"
      # The rollout search goes decision by decision with a queue: up to
      # about 20 s for a 12,000-job trace.
      "$pacml" replay "$file" --format elasticflow --cluster $cluster --admission both \
        --policies "$policies" --bound --hindsight 200 --hindsight-admission both \
        --json > "$out/$t-$cluster.json"
    done
  done
else
  say "$archive is absent: the trace replays need ElasticFlow's traces (set PACML_SHARED_DATA)"
fi

# 3. The table, from those files alone.
table=$out/table.md
python3 "$here/heldout_table.py" "$out" > "$table"
{
  echo
  made_by_line contrib/experiments/heldout.sh
} >> "$table"
cat "$table"
[ -z "$doc" ] || python3 "$here/replace_block.py" "$doc" "heldout table" "$table"
