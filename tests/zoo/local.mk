# tests/zoo/: model zoo unit tests, linked into tests/unit_tests. They read
# contrib/devices/*.yaml from the source tree and the PipeDream profiles from
# $PACML_SHARED_DATA (else ../shared/data), skipping when those are absent.
tests_unit_tests_SOURCES += \
	tests/zoo/op_cost_test.cpp \
	tests/zoo/device_model_test.cpp \
	tests/zoo/layer_builder_test.cpp \
	tests/zoo/model_zoo_test.cpp \
	tests/zoo/current_models_test.cpp \
	tests/zoo/zoo_test_util.h \
	tests/zoo/calibration_test.cpp
