#!/bin/sh
# contrib/probe/pacml-probe on the CPU (--device cpu --quick), where Debian's
# python3-torch is installed: it writes a probe file pacml reads, its models
# have the parameter counts of pacml's zoo, and bad options are refused.
# Skips (exit 77) with a message where no Python has torch.
. "$(dirname "$0")/../sim/cli/cli_lib.sh"
PROBE=$SRC/contrib/probe/pacml-probe

python=""
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import torch, torchvision' 2>/dev/null; then python=$candidate; break; fi
done
if [ -z "$python" ]; then
  echo "SKIP: no python3 with torch and torchvision (apt-get install python3-torch python3-torchvision): the probe was not run"
  exit 77
fi

# 1. A quick run writes every kind of row, each configuration once.
expect_ok "probe --device cpu --quick" "$python" "$PROBE" --device cpu --quick --steps 1 --out "$tmp/cpu.csv"
check_rows() {
  "$python" - "$tmp/cpu.csv" <<'PY'
import csv, sys
lines = open(sys.argv[1]).read().splitlines()
header = dict(l[2:].split(": ", 1) for l in lines if l.startswith("# "))
assert header["pacml_probe"] == "1", header
rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
kinds = [r["kind"] for r in rows]
for kind in ("matmul", "copy", "host_op"):
    assert kind in kinds, kind
steps = [r for r in rows if r["kind"] == "step"]
assert len(steps) == 6, len(steps)
for r in rows:
    if r["status"] == "ok":
        assert float(r["seconds"]) > 0, r
assert any(r["checkpointing"] == "yes" and r["status"] == "ok" for r in steps), steps
assert all(r["status"] in ("ok", "unsupported") for r in steps), steps
PY
}
if check_rows 2>"$tmp/err"; then pass; else fail "probe rows: $(cat "$tmp/err")"; fi

# 2. The probe's models are pacml's zoo models: the same parameter counts.
zoo_params() { "$PACML" graph info --json --model "$@" | /usr/bin/python3 -c 'import json,sys; print(int(json.load(sys.stdin)["params"]))'; }
probe_params() {
  "$python" - "$SRC/contrib/probe" "$@" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import probe_models
model, layers = sys.argv[2], int(sys.argv[3])
net, builder = probe_models.build(model, layers, 224, "eager", False)
print(sum(p.numel() for p in net.parameters()))
PY
}
for spec in "gpt2 2" "bert-base 2" "resnet50 0"; do
  set -- $spec
  layers_option=""
  [ "$2" -gt 0 ] && layers_option="--layers $2"
  # shellcheck disable=SC2086
  want=$(zoo_params "$1" $layers_option 2>"$tmp/err")
  got=$(probe_params "$1" "$2" 2>>"$tmp/err")
  if [ -n "$want" ] && [ "$want" = "$got" ]; then pass; else fail "parameters of $1 ($2 layers): zoo $want, probe $got: $(cat "$tmp/err")"; fi
done

# 3. Bad options: a clear message, exit 2 (argparse), nothing written.
expect_input_error "probe --steps 0" "--steps" "$python" "$PROBE" --device cpu --steps 0 --out "$tmp/x.csv"
expect_input_error "probe --device tpu" "invalid choice" "$python" "$PROBE" --device tpu --out "$tmp/x.csv"
if "$python" -c 'import torch,sys; sys.exit(torch.cuda.is_available())'; then
  expect_input_error "probe without a GPU" "no CUDA device" "$python" "$PROBE" --out "$tmp/x.csv"
fi
[ ! -e "$tmp/x.csv" ] && pass || fail "a refused probe wrote a file"

finish
