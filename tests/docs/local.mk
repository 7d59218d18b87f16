# tests/docs: every doc/*.md and every § the tree cites exist (no build
# needed; runs without GoogleTest).
TESTS += tests/docs/citations_test.sh
dist_noinst_SCRIPTS += tests/docs/citations_test.sh
EXTRA_DIST += doc
