#!/bin/sh
# The include graph follows the layers of doc/ARCHITECTURE.md §1: core at the
# bottom; sim and plugin on core; model on sim and core. A file includes only
# its own folder and the layers below it, so an arrow the wrong way (core
# including sim, plugin or model; sim including plugin or model; plugin
# including sim or model; model including plugin) fails here, naming the file
# and line. sim/cli/ is the `pacml` command's own: no other folder includes it.
# (Issue 30, item 2: `pacml config keys` once included plugin/ and model/,
# pacml-train's main sim/cli/.)
set -u
SRC=${PACML_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$SRC" || exit 1
passed=0 failed=0
# check FOLDER FORBIDDEN [EXEMPT]: no C++ file under FOLDER/ (but those under
# EXEMPT/) has `#include "F/..."` or <F/...> for a folder F of the
# |-separated FORBIDDEN.
check() {
  folder=$1 forbidden=$2 exempt=${3:-}
  if [ ! -d "$folder" ]; then
    echo "FAIL: no folder $folder/ under $SRC"
    failed=$((failed + 1))
    return
  fi
  hits=$(find "$folder" -type f \( -name '*.cpp' -o -name '*.h' \) -print | LC_ALL=C sort |
    grep -v "^${exempt:-/}/" |
    xargs grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]($forbidden)/" /dev/null)
  if [ -n "$hits" ]; then
    echo "FAIL: $folder/ must not include $(echo "$forbidden" | sed 's/|/, /g'):"
    echo "$hits" | sed 's/^/  /'
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
}
check core 'sim|plugin|model'
check sim 'plugin|model'
check plugin 'sim|model'
check model 'plugin|sim/cli'
check sim 'sim/cli' sim/cli
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
