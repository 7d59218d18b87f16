#!/bin/sh
# Every document the tree cites exists, and so does every section it cites.
#
# Scans the source tree's text files (git's file list when there is one, else
# every file outside build directories) for
#   * doc/NAME.md, which must exist;
#   * §N or §N.M, which must be a heading "N." or "N.M" (after the #s) of the
#     document it refers to: the doc/NAME.md named last before it on the same
#     or the previous line; failing that, in a file under doc/, that file
#     itself, and in any other file the doc/NAME.md named last before it in
#     the file. A § with no document to refer to is a failure;
#   * the shared spec's file names (MODEL.md, LEARNING.md, PHYSICAL.md,
#     SLURM.md without doc/, and the two recipes), which are not in the
#     repository and so must not be cited.
# Prints one line per failure and "N passed, M failed", N counting checked
# citations; PACML_CITATIONS_VERBOSE=1 prints every citation checked.
set -u
SRC=${PACML_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$SRC" || exit 1
if [ ! -f configure.ac ] || [ ! -d doc ]; then
  echo "FAIL: $SRC is not pacml's source directory (set PACML_SOURCE_DIR)"
  echo "0 passed, 1 failed"
  exit 1
fi
LC_ALL=C
export LC_ALL
list=$(mktemp)
trap 'rm -f "$list" "$list.hits"' EXIT

# git's list only when $SRC is a checkout's top (not, say, a distcheck tree
# unpacked inside an ignored build directory of one).
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
  git ls-files --cached --others --exclude-standard
else
  find . \( -name .git -o -name autom4te.cache -o -name '_build' -o -name '_inst' \
    -o -name '.deps' -o -name '.libs' -o -name 'build' -o -name 'build-*' \) -prune \
    -o -type f -print | sed 's|^\./||'
fi | grep -v '^tests/docs/citations_test\.sh$' | while IFS= read -r f; do
  [ -f "$f" ] && printf '%s\n' "$f"
done >"$list"

# Text files that mention a document, a section or a recipe at all.
tr '\n' '\0' <"$list" | xargs -0 grep -lI -e '\.md' -e '§' -e 'RECIPE' >"$list.hits" 2>/dev/null
if [ ! -s "$list.hits" ]; then
  echo "FAIL: no files to check in $SRC"
  echo "0 passed, 1 failed"
  exit 1
fi

awk -v files="$list.hits" -v verbose="${PACML_CITATIONS_VERBOSE:-0}" '
function sections_of(doc,    line, id) {
  if (doc in loaded) return exists[doc]
  loaded[doc] = 1
  exists[doc] = 0
  while ((getline line < doc) > 0) {
    exists[doc] = 1
    if (line !~ /^#+ /) continue
    sub(/^#+ +/, "", line)
    id = line
    sub(/[ \t].*$/, "", id)
    sub(/\.$/, "", id)
    if (id ~ /^[0-9]+(\.[0-9]+)*$/) heading[doc, id] = 1
  }
  close(doc)
  return exists[doc]
}
function fail(msg) { failed++; print "FAIL: " file ":" n ": " msg }
function pass(what) { passed++; if (verbose) print "ok " file ":" n ": " what }
function check_doc(doc) {
  if (sections_of(doc)) pass(doc); else fail(doc " does not exist")
}
function check_section(doc, id) {
  if (doc == "") { fail("§" id " with no doc/NAME.md to refer to"); return }
  if (!sections_of(doc)) { fail(doc " §" id ": " doc " does not exist"); return }
  if ((doc, id) in heading) pass(doc " §" id); else fail(doc " §" id ": no such section heading")
}
function scan(line,    rest, token, id, doc, previous) {
  # A doc named on the previous line still governs this one.
  previous = last_on_line
  last_on_line = ""
  rest = line
  while (match(rest, /doc\/[A-Za-z0-9_-]+\.md|§[0-9]+(\.[0-9]+)*/)) {
    token = substr(rest, RSTART, RLENGTH)
    rest = substr(rest, RSTART + RLENGTH)
    if (token ~ /^doc\//) {
      check_doc(token)
      last_on_line = token
      last_in_file = token
      continue
    }
    id = substr(token, 3)  # after the two bytes of "§"
    doc = last_on_line != "" ? last_on_line : previous != "" ? previous : \
          self != "" ? self : last_in_file
    check_section(doc, id)
  }
  # Names of the shared spec, which the repository does not have.
  rest = line
  while (match(rest, /[A-Za-z0-9_.\/-]*(MODEL|LEARNING|PHYSICAL|SLURM)\.md|[A-Za-z0-9_.\/-]*(SLURM|BUILD)-RECIPE[A-Za-z.]*/)) {
    token = substr(rest, RSTART, RLENGTH)
    rest = substr(rest, RSTART + RLENGTH)
    if (token ~ /RECIPE/ || token !~ /(^|\/)doc\/[A-Z]+\.md$/)
      fail(token " is not in the repository (cite doc/NAME.md)")
  }
}
BEGIN {
  while ((getline file < files) > 0) {
    self = (file ~ /^doc\/[A-Za-z0-9_-]+\.md$/) ? file : ""
    last_in_file = ""
    last_on_line = ""
    n = 0
    # Read through "./": sections_of() may have the same file open by its own name.
    while ((getline line < ("./" file)) > 0) {
      n++
      scan(line)
    }
    close("./" file)
  }
  print passed + 0 " passed, " failed + 0 " failed"
  exit (failed > 0)
}
'
