#!/bin/sh
# Command-line tests of `pacml`: help everywhere, JSON output that scripts
# read, and clear errors with non-zero exit codes for bad input.
set -u
. "$(dirname "$0")/cli_lib.sh"

# --help everywhere
expect_ok "pacml --help" "$PACML" --help
for cmd in graph estimate topology bench; do
  expect_ok "pacml $cmd --help" "$PACML" $cmd --help
  grep -q "usage: pacml $cmd" "$tmp/out" || fail "$cmd --help shows no usage"
done
expect_ok "pacml graph info --help" "$PACML" graph info --help

# graph info on the committed fixtures
expect_ok "graph info (PipeDream)" "$PACML" graph info "$SRC/tests/fixtures/tiny.txt" --json
[ "$(json_get "$tmp/out" "d['ops'], d['edges'], d['step_ops'], d['step_edges']")" = "4 3 8 7" ] \
  || fail "graph info counts: $(cat "$tmp/out")"
expect_ok "graph info (native)" "$PACML" graph info --graph "$SRC/tests/fixtures/tiny.yaml" --json
[ "$(json_get "$tmp/out" "d['param_bytes']")" = "1627176.0" ] || fail "native param bytes: $(cat "$tmp/out")"

# estimate: the JSON array scripts rely on
expect_ok "estimate --json" "$PACML" estimate --graph "$SRC/tests/fixtures/tiny.txt" --json
[ "$(json_get "$tmp/out" "[r['action'] for r in d]")" = "[1, 2, 4, 6, 8, 10, 12, 14, 16]" ] \
  || fail "estimate actions: $(cat "$tmp/out")"
[ "$(json_get "$tmp/out" "all(set(r) >= {'action','placed','servers','jct','speedup','comm','comp'} for r in d)")" = "True" ] \
  || fail "estimate keys"
expect_ok "estimate one action" "$PACML" estimate --graph "$SRC/tests/fixtures/tiny.txt" --action 4 --profile reference
grep -q "reference" "$tmp/out" || fail "estimate table names the profile"

# the built-in model zoo: listed, summarised, exported, estimated
expect_ok "graph zoo --json" "$PACML" graph zoo --json
[ "$(json_get "$tmp/out" "len(d) >= 11 and {'resnet50','bert-base','gpt2'} <= {m['model'] for m in d}")" = "True" ] \
  || fail "zoo list: $(cat "$tmp/out")"
expect_ok "graph info --model" "$PACML" graph info --model resnet18 --json
[ "$(json_get "$tmp/out" "abs(d['params'] / 11.69e6 - 1) < 0.01")" = "True" ] || fail "resnet18 params: $(cat "$tmp/out")"
cp "$tmp/out" "$tmp/zoo_info.json"
expect_ok "graph export native" "$PACML" graph export --model resnet18 --output "$tmp/resnet18.yaml"
expect_ok "graph export pipedream" "$PACML" graph export --model resnet18 --format pipedream --output "$tmp/resnet18.txt"
for f in resnet18.yaml resnet18.txt; do
  expect_ok "graph info on exported $f" "$PACML" graph info "$tmp/$f" --json
  [ "$(json_get "$tmp/out" "d['ops'], d['edges'], d['jct_seq']")" = "$(json_get "$tmp/zoo_info.json" "d['ops'], d['edges'], d['jct_seq']")" ] \
    || fail "export $f does not round-trip"
done
expect_ok "estimate --model" "$PACML" estimate --model gpt2 --batch 4 --action 8 --json
[ "$(json_get "$tmp/out" "d[0]['placed']")" = "True" ] || fail "gpt2 estimate: $(cat "$tmp/out")"
expect_error "unknown model" "unknown model" "$PACML" graph info --model resnet9000
expect_error "batch 0" "--batch" "$PACML" graph info --model resnet50 --batch 0
expect_error "bad precision" "precision" "$PACML" graph info --model resnet50 --precision fp8
expect_error "zoo option without model" "--model only" "$PACML" graph info "$SRC/tests/fixtures/tiny.txt" --batch 8
expect_error "graph and model" "not both" "$PACML" estimate --graph "$SRC/tests/fixtures/tiny.txt" --model gpt2

# today's models: listed against their published counts, described, and their options' errors
expect_ok "graph zoo (table)" "$PACML" graph zoo
for m in llama3.2-1b llama3.2-3b llama3-8b llama3-70b mistral-7b vit_b_16 vit_l_16 vit_h_14 dit-xl-2; do
  grep -q "^$m " "$tmp/out" || fail "graph zoo lists no $m"
done
grep "^llama3.2-1b " "$tmp/out" | grep -q "1235.8 M.*1235.8 M.*+0 %" \
  || fail "graph zoo: llama3.2-1b against its published count: $(grep '^llama3.2-1b' "$tmp/out")"
expect_ok "graph zoo --json (new models)" "$PACML" graph zoo --json
[ "$(json_get "$tmp/out" "all(abs(m['params'] / m['published_params'] - 1) < 0.012 for m in d if m['published_params'])")" = "True" ] \
  || fail "graph zoo: a count off its published figure"
expect_ok "graph info llama3-8b 4096 bf16" "$PACML" graph info --model llama3-8b --seq-len 4096 --precision bf16 --json
[ "$(json_get "$tmp/out" "round(d['params']), d['configuration']")" = "8030261248 llama3-8b/b8/s4096/i0/32x4096x32/kv8/ffn14336/v128256/untied/sdpa/bf16/A100-SXM4-80GB" ] \
  || fail "llama3-8b info: $(cat "$tmp/out")"
expect_ok "graph info --attention eager" "$PACML" graph info --model llama3-8b --seq-len 4096 --attention eager --layers 2 --kv-heads 4 --ffn-hidden 8192 --vocab 32000 --tied-embeddings yes --json
[ "$(json_get "$tmp/out" "d['configuration'].split('/')[4:9]")" = "['2x4096x32', 'kv4', 'ffn8192', 'v32000', 'tied']" ] \
  || fail "llama options: $(cat "$tmp/out")"
expect_input_error "kv heads not dividing heads" "--kv-heads: 5 key/value heads do not divide the 32 attention heads" \
  "$PACML" graph info --model llama3-8b --kv-heads 5
expect_input_error "seq-len 0" "--seq-len" "$PACML" graph info --model llama3-8b --seq-len 0
expect_input_error "seq-len above the cap" "--seq-len: sequence length must be between 1 and 8192 for llama3-8b" \
  "$PACML" graph info --model llama3-8b --seq-len 8193
expect_input_error "unknown attention" "--attention: unknown attention 'flash'; known: sdpa" \
  "$PACML" graph info --model gpt2 --attention flash
expect_input_error "tied-embeddings not yes/no" "--tied-embeddings: expected yes or no" \
  "$PACML" graph info --model llama3.2-1b --tied-embeddings maybe
expect_input_error "llama option on gpt2" "--kv-heads: gpt2 is not a Llama-style decoder" \
  "$PACML" graph info --model gpt2 --kv-heads 4
expect_input_error "attention on a graph file" "--attention: applies to --model only" \
  "$PACML" graph info "$SRC/tests/fixtures/tiny.txt" --attention eager
expect_input_error "ViT image not tiled by patches" "--image-size: image size 230 is not a multiple of 16" \
  "$PACML" graph info --model vit_b_16 --image-size 230

# golden value through the command line, when the paper profiles are here
if [ -f "$DATA/pipedream/gnmt.txt" ]; then
  expect_ok "estimate gnmt" "$PACML" estimate --graph "$DATA/pipedream/gnmt.txt" --profile reference --action 16 --json
  [ "$(json_get "$tmp/out" "d[0]['servers'], round(d[0]['jct'], 6)")" = "21 308.390524" ] \
    || fail "gnmt a=16 via CLI: $(cat "$tmp/out")"
else
  echo "SKIP: $DATA/pipedream absent: golden CLI check skipped"
fi

# bad input: clear errors, exit 2, never a crash
printf 'node1 -- X -- forward_compute_time=1.0, backward_com' >"$tmp/truncated.txt"
expect_error "truncated graph" "truncated.txt:1" "$PACML" graph info "$tmp/truncated.txt"
printf 'node1 -- X -- forward_compute_time=one, backward_compute_time=1, activation_size=1, parameter_size=0\n' >"$tmp/nan.txt"
expect_error "non-numeric field" "nan.txt:1: forward_compute_time is not a number" "$PACML" graph info "$tmp/nan.txt"
printf 'node1 -- X -- forward_compute_time=1, backward_compute_time=1, activation_size=1, parameter_size=0\n\tnode1 -- node7\n' >"$tmp/edge.txt"
expect_error "unknown node" "edge.txt:2: edge to unknown node 'node7'" "$PACML" graph info "$tmp/edge.txt"
: >"$tmp/empty.txt"
expect_error "empty file" "no nodes" "$PACML" graph info "$tmp/empty.txt"
printf 'node1 -- X -- forward_compute_time=1e400, backward_compute_time=1, activation_size=1, parameter_size=0\n' >"$tmp/huge.txt"
expect_error "huge number" "out of range" "$PACML" graph info "$tmp/huge.txt"
printf 'node1 -- X -- forward_compute_time=1, backward_compute_time=1, activation_size=1, parameter_size=0\nnode2 -- X -- forward_compute_time=1, backward_compute_time=1, activation_size=1, parameter_size=0\n\tnode1 -- node2\n\tnode2 -- node1\n' >"$tmp/cycle.txt"
expect_error "cycle" "cycle" "$PACML" graph info "$tmp/cycle.txt"
expect_error "missing file" "cannot open" "$PACML" graph info /nonexistent.txt
expect_error "invalid topology" "--topology" "$PACML" estimate --graph "$SRC/tests/fixtures/tiny.txt" --topology 4x8x2
expect_error "odd action" "invalid action 3" "$PACML" estimate --graph "$SRC/tests/fixtures/tiny.txt" --action 3
expect_error "bad profile" "unknown profile" "$PACML" estimate --graph "$SRC/tests/fixtures/tiny.txt" --profile fast
expect_error "bad beta" "beta" "$PACML" estimate --graph "$SRC/tests/fixtures/tiny.txt" --beta 1.5
expect_error "unknown option" "unknown option" "$PACML" estimate --grph x
expect_error "no graph" "give a graph" "$PACML" estimate
expect_error "unknown command" "unknown command" "$PACML" frobnicate

finish
