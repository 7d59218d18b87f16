# tests/model/: LibTorch tests of model/ (tests/model/X tests model/X): the
# Eigen forward pass agrees with LibTorch, weights export and import, the PPO
# and GPU trainers train deterministically. A separate binary,
# tests/model/model_tests, so that unit_tests never links LibTorch.
if HAVE_GTEST
if HAVE_TORCH
check_PROGRAMS += tests/model/model_tests
tests_model_model_tests_SOURCES = tests/model/model_test.cpp tests/model/gpu/gpu_model_test.cpp \
	tests/model/settings_test_util.h
tests_model_model_tests_CPPFLAGS = $(AM_CPPFLAGS) $(GTEST_CFLAGS) \
	-DPACML_SOURCE_DIR='"$(abs_top_srcdir)"'
tests_model_model_tests_LDADD = libpacml_model.la libpacml_sim.la libpacml_core.la \
	$(YAML_CPP_LIBS) $(HWLOC_LIBS) $(TORCH_LIBS) $(GTEST_LIBS)
tests_model_model_tests_LDFLAGS = $(TORCH_LDFLAGS)
TESTS += tests/model/model_tests
endif
endif
