# tests/docs: every doc/*.md and every § the tree cites exist, every C++ file
# is clang-formatted, and the settings tables in the docs are the parsers' own.
TESTS += tests/docs/citations_test.sh tests/docs/format_test.sh tests/docs/settings_tables_test.sh
dist_noinst_SCRIPTS += tests/docs/citations_test.sh tests/docs/format_test.sh \
	tests/docs/settings_tables_test.sh
EXTRA_DIST += doc
