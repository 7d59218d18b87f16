#!/bin/sh
# The model zoo against PipeDream's profiles (doc/RESULTS.md §6): `pacml graph
# calibrate --dir PIPEDREAM` on the built-in A100 (a100.txt) and again with
# `--device contrib/devices/v100.yaml` (v100.txt); table.md
# (zoo_calibration_table.py, from those two files alone) prints both outputs
# as they are, each under its command.
#
# usage: contrib/experiments/zoo-calibration.sh [OUT_DIR] [--doc FILE]
#   OUT_DIR     default: zoo-calibration-results
#   --doc FILE  replace the block "<!-- zoo calibration -->" ... "<!-- end of
#               zoo calibration -->" of FILE with table.md
#   PACML       the pacml binary (default: pacml on PATH)
#   PACML_SHARED_DATA   where pipedream/ is (default: ../shared/data next to
#                       the source tree)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/results_lib.sh"
pacml_binary
parse_out_and_doc zoo-calibration.sh zoo-calibration-results "$@"
shared_data "$here"
if [ ! -d "$PACML_SHARED_DATA/pipedream" ]; then
  echo "zoo-calibration.sh: $PACML_SHARED_DATA/pipedream is absent: the comparison needs PipeDream's profiles (set PACML_SHARED_DATA)" >&2
  exit 1
fi
mkdir -p "$out"
echo "zoo-calibration.sh: pacml graph calibrate (A100, then V100)" >&2
"$pacml" graph calibrate --dir "$PACML_SHARED_DATA/pipedream" > "$out/a100.txt"
(cd "$top" && "$pacml" graph calibrate --dir "$PACML_SHARED_DATA/pipedream" \
  --device contrib/devices/v100.yaml) > "$out/v100.txt"
{
  python3 "$here/zoo_calibration_table.py" "$out"
  echo
  made_by_line contrib/experiments/zoo-calibration.sh
} > "$out/table.md"
cat "$out/table.md"
write_block "zoo calibration" "$out/table.md"
