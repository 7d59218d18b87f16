# tests/sim/: the simulator's unit tests, one folder per sim/ folder
# (tests/sim/X tests sim/X), linked into tests/unit_tests; and tests/sim/cli/,
# the command-line tests of `pacml` (sim/cli/: every command, whatever layer
# does its work; most source cli_lib.sh), which need no GoogleTest.
if HAVE_GTEST
tests_unit_tests_SOURCES += \
	tests/sim/sim_test_util.h \
	tests/sim/calibration/calibration_test.cpp \
	tests/sim/calibration/device_fit_test.cpp \
	tests/sim/calibration/probe_file_test.cpp \
	tests/sim/engine/beta_distribution_test.cpp \
	tests/sim/engine/environment_test.cpp \
	tests/sim/engine/rollout_search_test.cpp \
	tests/sim/experiment/blocking_bound_test.cpp \
	tests/sim/experiment/experiment_test.cpp \
	tests/sim/experiment/experiment_keys_test.cpp \
	tests/sim/gpu/fitted_workload_test.cpp \
	tests/sim/gpu/gpu_experiment_test.cpp \
	tests/sim/gpu/gpu_replay_test.cpp \
	tests/sim/history/correction_fit_test.cpp \
	tests/sim/history/history_records_test.cpp \
	tests/sim/history/history_simulation_test.cpp \
	tests/sim/trace/trace_test.cpp
endif

TESTS += tests/sim/cli/cli_test.sh tests/sim/cli/cli_args_test.sh tests/sim/cli/cli_sim_test.sh \
	tests/sim/cli/cli_physical_test.sh tests/sim/cli/cli_device_test.sh \
	tests/sim/cli/cli_history_test.sh tests/sim/cli/cli_learning_test.sh tests/sim/cli/node_cli_test.sh
dist_noinst_SCRIPTS += tests/sim/cli/cli_lib.sh \
	tests/sim/cli/cli_test.sh tests/sim/cli/cli_args_test.sh tests/sim/cli/cli_sim_test.sh \
	tests/sim/cli/cli_physical_test.sh tests/sim/cli/cli_device_test.sh \
	tests/sim/cli/cli_history_test.sh tests/sim/cli/cli_learning_test.sh tests/sim/cli/node_cli_test.sh
