# tests/sim: simulator unit tests (appended to the gtest binary) and CLI tests.
tests_unit_tests_SOURCES += \
	tests/sim/sim_test_util.h \
	tests/sim/beta_distribution_test.cpp \
	tests/sim/environment_test.cpp \
	tests/sim/rollout_search_test.cpp \
	tests/sim/trace_test.cpp \
	tests/sim/experiment_test.cpp \
	tests/sim/gpu_experiment_test.cpp \
	tests/sim/blocking_bound_test.cpp \
	tests/sim/probe_file_test.cpp \
	tests/sim/device_fit_test.cpp

TESTS += tests/sim/cli_sim_test.sh tests/sim/cli_device_test.sh
dist_noinst_SCRIPTS += tests/sim/cli_sim_test.sh tests/sim/cli_device_test.sh
