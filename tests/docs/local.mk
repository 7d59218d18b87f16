# tests/docs: every doc/*.md and every § the tree cites exist, every C++ file
# is clang-formatted, the settings tables in the docs are the parsers' own, and
# no #include runs against the layers of doc/ARCHITECTURE.md §1.
TESTS += tests/docs/citations_test.sh tests/docs/format_test.sh tests/docs/settings_tables_test.sh \
	tests/docs/include_layers_test.sh
dist_noinst_SCRIPTS += tests/docs/citations_test.sh tests/docs/format_test.sh \
	tests/docs/settings_tables_test.sh tests/docs/include_layers_test.sh
EXTRA_DIST += doc
