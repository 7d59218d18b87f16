# tests/core/: the core library's unit tests, one folder per core/ folder
# (tests/core/X tests core/X), all linked into tests/unit_tests. The zoo
# tests read contrib/devices/*.yaml from the source tree and the PipeDream
# profiles from $PACML_SHARED_DATA (else ../shared/data), skipping when those
# are absent.
if HAVE_GTEST
tests_unit_tests_SOURCES += \
	tests/core/learning_test_util.h \
	tests/core/cluster/cluster_spec_test.cpp \
	tests/core/comm/collective_test.cpp \
	tests/core/config/settings_table_test.cpp \
	tests/core/correction/step_correction_test.cpp \
	tests/core/features/features_test.cpp \
	tests/core/gpu/gpu_policy_test.cpp \
	tests/core/graph/graph_input_test.cpp \
	tests/core/hw/hw_test.cpp \
	tests/core/inference/learned_policy_test.cpp \
	tests/core/inference/weights_test.cpp \
	tests/core/jct/estimator_cache_test.cpp \
	tests/core/jct/golden_jct_test.cpp \
	tests/core/jct/physical_profile_test.cpp \
	tests/core/parallel/comm_terms_test.cpp \
	tests/core/parallel/memory_terms_test.cpp \
	tests/core/parallel/physical_model_test.cpp \
	tests/core/parallel/throughput_table_test.cpp \
	tests/core/placement/placement_test.cpp \
	tests/core/policy/policy_test.cpp \
	tests/core/util/args_test.cpp \
	tests/core/util/lru_cache_test.cpp \
	tests/core/util/text_test.cpp \
	tests/core/util/numbers_test.cpp \
	tests/core/zoo/zoo_test_util.h \
	tests/core/zoo/calibration_test.cpp \
	tests/core/zoo/current_models_test.cpp \
	tests/core/zoo/device_model_test.cpp \
	tests/core/zoo/layer_builder_test.cpp \
	tests/core/zoo/model_zoo_test.cpp \
	tests/core/zoo/op_cost_test.cpp
endif
