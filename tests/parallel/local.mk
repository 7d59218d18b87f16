# tests/parallel: the physical model (issue 14) — cluster descriptions,
# strategies, throughput tables, calibration; and its command-line tests.
tests_unit_tests_SOURCES += \
	tests/parallel/calibration_test.cpp \
	tests/parallel/gpu_replay_test.cpp \
	tests/parallel/fitted_workload_test.cpp
