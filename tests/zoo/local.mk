# tests/zoo: appended to tests_unit_tests_SOURCES / TESTS
