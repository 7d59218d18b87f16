#!/bin/sh
# The settings tables in the docs are what `pacml config keys FORMAT
# --markdown` prints today: each block between
#   <!-- pacml config keys FORMAT --markdown -->  and  <!-- end of generated table -->
# in a tracked Markdown file is compared with the command's output, so the
# docs cannot fall behind the table the parser reads (the issue on one home per concept).
# Regenerate a block by pasting the command's output between its markers.
set -u
SRC=${PACML_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PACML=${PACML:-pacml}
cd "$SRC" || exit 1
if ! "$PACML" config keys --help >/dev/null 2>&1; then
  echo "FAIL: cannot run '$PACML config keys' (set PACML to the built pacml)"
  exit 1
fi
passed=0 failed=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for doc in $(grep -rl --include='*.md' '<!-- pacml config keys ' . | grep -v '^./build'); do
  for format in $(sed -n 's/^<!-- pacml config keys \([a-z._]*\) --markdown -->$/\1/p' "$doc"); do
    awk -v start="<!-- pacml config keys $format --markdown -->" '
      $0 == start { inside = 1; next }
      inside && $0 == "<!-- end of generated table -->" { exit }
      inside { print }' "$doc" >"$tmp/doc"
    "$PACML" config keys "$format" --markdown >"$tmp/now" 2>&1
    if cmp -s "$tmp/doc" "$tmp/now"; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
      echo "FAIL: $doc: the '$format' table differs from 'pacml config keys $format --markdown':"
      diff "$tmp/doc" "$tmp/now" | sed 's/^/  /'
    fi
  done
done
if [ $((passed + failed)) -eq 0 ]; then
  echo "FAIL: no generated settings table found in the docs"
  exit 1
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
