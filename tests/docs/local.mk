# tests/docs: every doc/*.md and every § the tree cites exist, and every C++
# file is clang-formatted (no build needed; runs without GoogleTest).
TESTS += tests/docs/citations_test.sh tests/docs/format_test.sh
dist_noinst_SCRIPTS += tests/docs/citations_test.sh tests/docs/format_test.sh
EXTRA_DIST += doc
