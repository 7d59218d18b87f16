#!/bin/sh
# The learned GPU policy on what its training never saw (model/README.md,
# "Held-out evaluation"): ElasticFlow's cluster06-09 and 195-job traces
# replayed on 32 and 128 GPUs (the traces' two clusters), the held-out zoo models
# (heldout-zoo.yaml) and the paper's PipeDream profiles as jobs
# (heldout-pipedream.yaml), each with immediate and queue admission, next to every
# baseline, with the capacity bound no policy can exceed on each trace
# (pacml replay --bound) and, in the JSON, a search teacher that knows the
# trace (--hindsight 200, with each admission). Training used only the
# workload fitted on cluster01-05 (and its zoo variant, train-zoo.yaml).
#
# usage: contrib/experiments/heldout.sh [OUT_DIR]
#   PACML       the pacml binary (default: pacml on PATH)
#   PACML_SHARED_DATA   where elasticflow/elasticflow-traces.tar.gz is
#                       (default: ../shared/data next to the source tree)
#   POLICIES    the policies compared (default: the learned policy and every baseline)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
pacml=${PACML:-pacml}
out=${1:-heldout-results}
data=${PACML_SHARED_DATA:-$here/../../../shared/data}
export PACML_SHARED_DATA=$data
policies=${POLICIES:-pacml:default,requested,min_feasible,para_max,fixed:8,random}
archive=$data/elasticflow/elasticflow-traces.tar.gz
mkdir -p "$out"

for e in heldout-zoo heldout-pipedream; do
  if [ $e = heldout-pipedream ] && [ ! -f "$data/pipedream/vgg16.txt" ]; then
    echo "heldout.sh: $data/pipedream is absent: skipping the PipeDream profiles" \
      "(set PACML_SHARED_DATA)" >&2
    continue
  fi
  "$pacml" evaluate "$here/$e.yaml" --policies "$policies" --out "$out/$e" | tee "$out/$e.txt"
done

if [ ! -f "$archive" ]; then
  echo "heldout.sh: $archive is absent: the trace replays need ElasticFlow's traces" \
    "(set PACML_SHARED_DATA)" >&2
  exit 0
fi
traces=$(mktemp -d)
trap 'rm -rf "$traces"' EXIT
tar xzf "$archive" -C "$traces"
for t in cluster06 cluster07 cluster08 cluster09 195job; do
  file=$(find "$traces" -name "$t.csv" | head -n 1)
  for cluster in dgx-a100-4x8 dgx-a100-16x8; do
    "$pacml" replay "$file" --format elasticflow --cluster $cluster --admission both \
      --policies "$policies" --bound | tee "$out/$t-$cluster.txt"
    # the search teacher that knows the trace, in both admission modes (with
    # a queue it goes decision by decision; up to about 20 s for a
    # 12,000-job trace): in the JSON only
    "$pacml" replay "$file" --format elasticflow --cluster $cluster --admission both \
      --policies "$policies" --bound --hindsight 200 --hindsight-admission both \
      --json > "$out/$t-$cluster.json"
  done
done
