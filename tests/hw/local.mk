# tests/hw: core/hw unit tests (appended to the gtest binary; included from
# tests/local.mk inside its HAVE_GTEST block) and `pacml node` CLI tests.
tests_unit_tests_SOURCES += tests/hw/hw_test.cpp
TESTS += tests/hw/node_cli_test.sh
dist_noinst_SCRIPTS += tests/hw/node_cli_test.sh
EXTRA_DIST += tests/hw/fixtures
