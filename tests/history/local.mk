# tests/history: predictions that learn from what ran (issue 31): the history's readers and join, the fit and the loop
# in the simulator (appended to the gtest binary), and the CLI test.
tests_unit_tests_SOURCES += \
	tests/history/history_records_test.cpp \
	tests/history/correction_fit_test.cpp \
	tests/history/history_simulation_test.cpp

TESTS += tests/history/cli_history_test.sh
dist_noinst_SCRIPTS += tests/history/cli_history_test.sh
