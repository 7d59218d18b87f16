#!/bin/sh
# doc/PHYSICAL.md §3's worked example: Llama 3 8B (bf16, global batch 32 x
# 2048 tokens) with FSDP and activation checkpointing on dgx-h100-4x8, across
# GPU counts, then the memory terms of the 8-GPU plan.
#
# usage: contrib/experiments/estimate-example.sh [OUT_DIR] [--doc FILE]
#   OUT_DIR     where example.md goes (default: estimate-example)
#   --doc FILE  also replace the block between "<!-- estimate example -->" and
#               "<!-- end of estimate example -->" in FILE
#   PACML       the pacml binary (default: pacml on PATH)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/results_lib.sh"
pacml=${PACML:-pacml}
parse_out_and_doc estimate-example.sh estimate-example "$@"
mkdir -p "$out"
job="--model llama3-8b --precision bf16 --batch 32 --cluster dgx-h100-4x8 --strategy fsdp --activation-checkpointing"
example=$out/example.md
{
  echo '```'
  echo "\$ pacml estimate $job"
  # shellcheck disable=SC2086
  "$pacml" estimate $job | sed 's/ *$//'
  echo "\$ pacml estimate $job --gpus 8"
  # shellcheck disable=SC2086
  "$pacml" estimate $job --gpus 8 | tail -n 1
  echo '```'
  echo
  made_by_line contrib/experiments/estimate-example.sh
} > "$example"
cat "$example"
[ -z "$doc" ] || python3 "$here/replace_block.py" "$doc" "estimate example" "$example"
