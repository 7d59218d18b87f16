# tests/hw: `pacml node` CLI tests.
TESTS += tests/hw/node_cli_test.sh
dist_noinst_SCRIPTS += tests/hw/node_cli_test.sh
