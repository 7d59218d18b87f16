#!/bin/sh
# Command-line tests of `pacml node describe` (issue 7).
# Env: PACML (the binary), PACML_SOURCE_DIR (the source tree).
set -u
PACML=${PACML:-./pacml}
src=${PACML_SOURCE_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
passed=0 failed=0
check() {
  if eval "$2"; then echo "ok - $1"; passed=$((passed + 1)); else echo "FAIL - $1"; failed=$((failed + 1)); fi
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pacml-node.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$PACML" node describe >"$tmp/local.txt" 2>"$tmp/err"
check "node describe exits 0 on this machine" "[ $? -eq 0 ]"
check "it prints a NodeName= line with CPUs and RealMemory" \
  "grep -Eq '^NodeName=[^ ]+ CPUs=[0-9]+ .*RealMemory=[0-9]+' '$tmp/local.txt'"

"$PACML" node describe --json >"$tmp/local.json"
check "--json is one JSON object with the Slurm line" \
  "python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j[\"cpus\"] >= 1 and j[\"slurm\"][\"node_line\"].startswith(\"NodeName=\")' '$tmp/local.json'"

"$PACML" node describe --xml "$src/tests/fixtures/hw/gpu-node.xml" >"$tmp/gpu.txt"
cat >"$tmp/gpu.expected" <<'OUT'
# slurm.conf
NodeName=gpu01 CPUs=8 Sockets=2 CoresPerSocket=2 ThreadsPerCore=2 RealMemory=131072 Gres=gpu:2

# gres.conf
NodeName=gpu01 Name=gpu File=/dev/nvidia0 Cores=0-1
NodeName=gpu01 Name=gpu File=/dev/nvidia1 Cores=2-3

# gpu 0000:17:00.0 [10de:20b2] NVIDIA Corporation GA100 [A100 SXM4 80GB] (card1,renderD128,opencl0d0)
# gpu 0000:b1:00.0 [10de:20b2] NVIDIA Corporation GA100 [A100 SXM4 80GB] (card2,renderD129)
# nic infiniband 0000:31:00.0 [15b3:101b] Mellanox Technologies MT28908 Family [ConnectX-6] (ib0,mlx5_0) near cores 0-1
# nic ethernet 0000:3d:00.0 [8086:1521] (eno1) near cores 0-1
OUT
check "--xml of a 2-GPU server gives the expected slurm.conf and gres.conf lines" \
  "diff -u '$tmp/gpu.expected' '$tmp/gpu.txt'"

"$PACML" node describe --xml "$src/tests/fixtures/hw/gpu-node.xml" --node-name n7 | grep -q '^NodeName=n7 Name=gpu File=/dev/nvidia1'
check "--node-name names the node" "[ $? -eq 0 ]"

"$PACML" node describe --xml /nonexistent.xml >/dev/null 2>"$tmp/err"
check "a missing XML file exits 2 naming it" "[ $? -eq 2 ] && grep -q nonexistent.xml '$tmp/err'"

# pacml topology --slurm-nodes --host-attrs: this machine's attributes on every RAMP server
"$PACML" topology --slurm-nodes --topology 2x2x2 --host-attrs --partition main \
  --node-attrs "NodeHostname=localhost Port=[7001-7008]" >"$tmp/nodes.txt" 2>"$tmp/err"
attrs=$(sed -n 's/^NodeName=[^ ]* //p' "$tmp/local.txt")
check "topology --slurm-nodes --host-attrs gives every server the node describe attributes" \
  "grep -qxF 'NodeName=n[1-8] $attrs NodeHostname=localhost Port=[7001-7008]' '$tmp/nodes.txt'"
check "--partition names the partition line" "grep -qx 'PartitionName=main Nodes=n\[1-8\] Default=YES MaxTime=INFINITE State=UP' '$tmp/nodes.txt'"
"$PACML" topology --slurm-nodes --host-attrs >"$tmp/nodes2.txt"
check "--host-attrs without --node-attrs adds State=UNKNOWN, no made-up GPU" \
  "grep -qxF 'NodeName=n[1-32] $attrs State=UNKNOWN' '$tmp/nodes2.txt'"
"$PACML" topology --slurm-nodes --partition 'a b' >/dev/null 2>"$tmp/err"
check "a bad --partition exits 2 naming the option" "[ $? -eq 2 ] && grep -q -- --partition '$tmp/err'"

"$PACML" node frobnicate >/dev/null 2>&1
check "an unknown verb exits 2" "[ $? -eq 2 ]"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
