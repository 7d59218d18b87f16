#!/bin/sh
# The physical model's figures (doc/RESULTS.md §5), each from the pacml
# command that makes it, into OUT_DIR:
#   after/      `pacml estimate --model M --json` for resnet50 and gpt2 at their
#               zoo batches on the paper's 4x4x2 cluster (and --gpus 1 without
#               --json, whose header names the batch), and resnet50 at batch 256
#               on dgx-a100-16x8: the block "physical after";
#   calibrate/  `pacml calibrate --out DIR` (calibration.csv, .json, .png; it
#               reads ElasticFlow's traces under PACML_SHARED_DATA): the block
#               "calibration table", and doc/img/calibration.png;
#   strategy/   `pacml estimate --model M --batch B --cluster C --json` for every
#               zoo model at the batch of §5.2 on dgx-a100-16x8 and
#               ramp-a100-16x8: the block "strategy tables";
#   bench-physical.json   `pacml bench-physical --json`: the block
#               "bench-physical" (timings: they depend on the machine's load).
# Each block (physical_table.py PART OUT_DIR, from those files alone) ends
# with the commit, date and machine.
#
# usage: contrib/experiments/physical-model.sh [OUT_DIR] [--doc FILE]
#   OUT_DIR     default: physical-results
#   --doc FILE  replace those four blocks of FILE, and copy the calibration plot
#               to doc/img/calibration.png
#   PACML       the pacml binary (default: pacml on PATH)
#   PACML_SHARED_DATA   where elasticflow/ is (default: ../shared/data next to
#                       the source tree); without it calibrate compares only the
#                       published points, and says so
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/results_lib.sh"
pacml_binary
parse_out_and_doc physical-model.sh physical-results "$@"
shared_data "$here"
say() { echo "physical-model.sh: $*" >&2; }
mkdir -p "$out/after" "$out/strategy" "$out/calibrate"

say "before/after: pacml estimate resnet50, gpt2 (paper's cluster), resnet50 --batch 256 on dgx-a100-16x8"
for m in resnet50 gpt2; do
  "$pacml" estimate --model $m --json > "$out/after/$m.json"
  "$pacml" estimate --model $m --gpus 1 > "$out/after/$m.txt"
done
"$pacml" estimate --model resnet50 --batch 256 --cluster dgx-a100-16x8 --json \
  > "$out/after/resnet50-256-dgx-a100-16x8.json"

say "pacml calibrate --out $out/calibrate"
"$pacml" calibrate --out "$out/calibrate" > "$out/calibrate/calibrate.txt" 2> "$out/calibrate/stderr.txt"

# The models of §5.2 and their global batches.
models="alexnet:256 vgg16:256 resnet18:256 resnet50:256 resnext50_32x4d:256 squeezenet1_0:256
  inception_v3:256 gnmt:128 deepspeech2:64 bert-base:64 bert-large:64 gpt2:64 gpt2-medium:64
  gpt2-large:64 gpt2-xl:64"
# shellcheck disable=SC2086 # one model:batch a word
printf '%s\n' $models > "$out/strategy/models.txt"
for cluster in dgx-a100-16x8 ramp-a100-16x8; do
  say "pacml estimate on $cluster, every model of §5.2"
  for mb in $models; do
    m=${mb%:*} b=${mb#*:}
    "$pacml" estimate --model "$m" --batch "$b" --cluster $cluster --json \
      > "$out/strategy/$cluster-$m-$b.json"
  done
done

say "pacml bench-physical --json"
"$pacml" bench-physical --json > "$out/bench-physical.json"

made=$(made_by_line contrib/experiments/physical-model.sh)
for part in after calibration strategy bench-physical; do
  {
    python3 "$here/physical_table.py" $part "$out"
    echo
    if [ $part = bench-physical ]; then
      echo "${made%.}; timings: the machine's load at the time counts (\`nproc\`: $(nproc), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end)."
    else
      echo "$made"
    fi
  } > "$out/$part.md"
  cat "$out/$part.md"
done
write_block "physical after" "$out/after.md"
write_block "calibration table" "$out/calibration.md"
write_block "strategy tables" "$out/strategy.md"
write_block "bench-physical" "$out/bench-physical.md"
if [ -n "$docs" ] && [ -f "$out/calibrate/calibration.png" ]; then
  cp "$out/calibrate/calibration.png" "$top/doc/img/calibration.png"
fi
