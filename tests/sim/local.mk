# tests/sim: appended to tests_unit_tests_SOURCES / TESTS
