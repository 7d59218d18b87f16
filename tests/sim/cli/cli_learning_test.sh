#!/bin/sh
# Command-line tests of the learned policy (issue 5): pacml:PATH wherever a
# baseline goes, pacml:NAME lookup, clear errors for bad weights files,
# pacml bench-policy, and pacml train (when pacml-train was built).
# Env: PACML (the binary), PACML_SOURCE_DIR (the repository).
set -u
PACML=${PACML:-./pacml}
SRC=${PACML_SOURCE_DIR:-.}
MODEL="$SRC/contrib/models/reference.pacw"
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pacml-cli-learning.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok - $1"; }
bad() { echo "FAIL - $1"; fail=1; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }

cat >"$tmp/small.yaml" <<YAML
pacml_experiment: 1
name: cli-learning
profile: reference
topology: 4x4x2
horizon: 40000
workload:
  type: synthetic
  graphs: [alexnet, gnmt]
  interarrival: 1000
beta: [A, D]
policies: [pacml:$MODEL, para_max]
seeds: 2
YAML

"$PACML" simulate "$tmp/small.yaml" --policy "pacml:$MODEL" --seed 3 --json >"$tmp/sim.json" 2>"$tmp/err"
check "simulate --policy pacml:PATH exits 0" "[ $? -eq 0 ]"
check "simulate names the learned policy" "grep -q 'pacml:' '$tmp/sim.json'"

PACML_MODELS_DIR="$SRC/contrib/models" "$PACML" simulate "$tmp/small.yaml" --policy pacml:reference --seed 3 --json >"$tmp/sim2.json" 2>"$tmp/err"
check "pacml:reference resolves through PACML_MODELS_DIR" "[ $? -eq 0 ]"

"$PACML" evaluate "$tmp/small.yaml" --out "$tmp/eval" >"$tmp/eval.txt" 2>"$tmp/err"
check "evaluate with pacml:PATH in the experiment exits 0" "[ $? -eq 0 ]"
check "evaluate summary has the learned policy" "grep -q 'pacml:' '$tmp/eval/summary.csv'"

head -c 100 "$MODEL" >"$tmp/truncated.pacw"
"$PACML" simulate "$tmp/small.yaml" --policy "pacml:$tmp/truncated.pacw" >"$tmp/out" 2>"$tmp/err"
check "a truncated weights file exits 2" "[ $? -eq 2 ]"
check "the message names the file and says truncated" "grep -q 'truncated.pacw.*truncated' '$tmp/err'"

"$PACML" simulate "$tmp/small.yaml" --policy pacml:no-such-model >"$tmp/out" 2>"$tmp/err"
check "an unknown model exits 2" "[ $? -eq 2 ]"
check "the message names the missing file" "grep -q 'no-such-model' '$tmp/err'"

"$PACML" bench-policy --weights "pacml:$MODEL" --graphs alexnet,gnmt --repeats 3 >"$tmp/bench" 2>"$tmp/err"
check "bench-policy exits 0" "[ $? -eq 0 ]"
check "bench-policy prints a row per graph" "grep -q '^alexnet' '$tmp/bench' && grep -q '^gnmt' '$tmp/bench'"

# Every shipped model is installed (listed in model/local.mk) and loads and decides.
for weights in "$SRC"/contrib/models/*.pacw; do
  name=$(basename "$weights")
  check "shipped model $name is installed (models_DATA)" "grep -qF 'contrib/models/$name' '$SRC/model/local.mk'"
  # A paper-world model (bench-policy) or a GPU one (bench-gpu-policy); each
  # command refuses the other kind.
  check "shipped model $name loads and decides" \
    "'$PACML' bench-policy --weights '$weights' --graphs resnet18 --repeats 1 >/dev/null 2>'$tmp/err' ||
     '$PACML' bench-gpu-policy --weights '$weights' --repeats 1 >/dev/null 2>'$tmp/err'"
done

# Episodes timed on an experiment the policy never trained on (held-out zoo
# models), next to every baseline, in both admission modes.
"$PACML" bench-gpu-policy "$SRC/contrib/experiments/heldout-zoo.yaml" --repeats 1 >"$tmp/bench-gpu" 2>"$tmp/err"
check "bench-gpu-policy EXPERIMENT exits 0" "[ $? -eq 0 ]"
check "bench-gpu-policy EXPERIMENT names it and times every policy in both modes" \
  "grep -q '^heldout-zoo, seed 0' '$tmp/bench-gpu' &&
   [ \$(grep -cE '^(immediate|queue) +(requested|min_feasible|para_max|fixed:8|random|pacml:default) +[0-9]' '$tmp/bench-gpu') -eq 12 ]"
check "bench-gpu-policy replays the learned policy's answers, meeting the same deadlines, and says what deciding takes" \
  "(for a in immediate queue; do
     learned=\$(awk -v a=\$a '\$1 == a && \$2 == \"pacml:default\" && \$3 != \"answers\" {print \$5}' '$tmp/bench-gpu')
     replayed=\$(awk -v a=\$a '\$1 == a && \$2 == \"pacml:default\" && \$3 == \"answers\" {print \$6}' '$tmp/bench-gpu')
     [ -n \"\$learned\" ] && [ \"\$learned\" = \"\$replayed\" ] || exit 1
     grep -q \"^\$a: deciding takes .* ms of the learned episode's\" '$tmp/bench-gpu' || exit 1
   done)"
PACML_SHARED_DATA=/nonexistent "$PACML" bench-gpu-policy "$SRC/contrib/experiments/heldout-pipedream.yaml" \
  --repeats 1 >"$tmp/out" 2>"$tmp/err"
check "bench-gpu-policy with the experiment's graphs missing exits 2 before timing anything, naming the file" \
  "[ $? -eq 2 ] && [ ! -s '$tmp/out' ] && grep -q '/nonexistent/pipedream/alexnet.txt' '$tmp/err'"
"$PACML" bench-gpu-policy "$tmp/small.yaml" --repeats 1 >/dev/null 2>"$tmp/err"
check "bench-gpu-policy refuses a paper-style experiment (exit 2, says why)" \
  "[ $? -eq 2 ] && grep -q 'fitted-workload' '$tmp/err'"

if [ -x "$(dirname "$PACML")/pacml-train" ]; then
  cat >"$tmp/train.yaml" <<YAML
pacml_train: 1
name: cli
experiment: $tmp/small.yaml
betas: [A]
max_updates: 1
episodes_per_update: 1
ppo: {minibatch: 16, epochs: 1}
eval: {every: 1, seeds: [9], baselines: [para_max]}
YAML
  "$PACML" train --config "$tmp/train.yaml" --out "$tmp/train" --no-progress --quiet >"$tmp/train.out" 2>"$tmp/err"
  check "pacml train exits 0" "[ $? -eq 0 ]"
  check "pacml train writes final.pacw and curve.csv" "[ -s '$tmp/train/final.pacw' ] && [ -s '$tmp/train/curve.csv' ]"
  "$PACML" simulate "$tmp/small.yaml" --policy "pacml:$tmp/train/final.pacw" >/dev/null 2>"$tmp/err"
  check "the trained weights work as pacml:PATH" "[ $? -eq 0 ]"
  "$PACML" train --config "$tmp/train.yaml" --out "$tmp/train-pinned" --no-progress --pin-threads >"$tmp/train.out" 2>"$tmp/err"
  check "pacml train --pin-threads exits 0 and says it pins" "[ $? -eq 0 ] && grep -q 'pinning up to' '$tmp/err'"
  "$PACML" train --out "$tmp/x" >/dev/null 2>"$tmp/err"
  check "pacml train without --config exits 2" "[ $? -eq 2 ]"
  # The GPU policy's trainer (world: gpu), one short iteration.
  cat >"$tmp/gpu.yaml" <<YAML
pacml_train: 1
world: gpu
name: cli-gpu
train: {clusters: [dgx-a100-4x8], loads: [1], admissions: [immediate], seeds: [1], jobs: 100}
validation: {seeds: [2], jobs: 50}
teacher_caps: [0.1, inf]
iterations: 3
optimiser: {epochs: 1, minibatch: 32}
YAML
  "$PACML" train --config "$tmp/gpu.yaml" --out "$tmp/gpu" --max-updates 1 --no-progress --quiet >"$tmp/train.out" 2>"$tmp/err"
  check "pacml train (world: gpu) exits 0 after --max-updates 1 iteration" "[ $? -eq 0 ] && grep -q '^iterations 1$' '$tmp/train.out'"
  check "pacml train (world: gpu) writes final.pacw, best.pacw and curve.csv" "[ -s '$tmp/gpu/final.pacw' ] && [ -s '$tmp/gpu/best.pacw' ] && [ -s '$tmp/gpu/curve.csv' ]"
  "$PACML" evaluate --policies "pacml:$tmp/gpu/final.pacw,min_feasible" --seeds 1 --quiet >"$tmp/eval.out" 2>"$tmp/err"
  check "the trained GPU weights work as pacml:PATH in evaluate" "[ $? -eq 0 ] && grep -q 'pacml:' '$tmp/eval.out'"
  printf 'pacml_train: 1\nworld: gpu\nloads: [1]\n' >"$tmp/gpu-bad.yaml"
  "$PACML" train --config "$tmp/gpu-bad.yaml" --out "$tmp/x" >/dev/null 2>"$tmp/err"
  check "an unknown GPU training key exits 2 naming file:line" "[ $? -eq 2 ] && grep -q 'gpu-bad.yaml:3' '$tmp/err'"
  "$PACML" train --config "$tmp/gpu.yaml" --out "$tmp/x" --resume >/dev/null 2>"$tmp/err"
  check "pacml train --resume is refused for the GPU trainer" "[ $? -eq 2 ]"
else
  echo "skip - pacml train: built without LibTorch (no pacml-train)"
fi

exit $fail
