# tests/learning: the learned policy's LibTorch tests (Eigen/LibTorch
# agreement, deterministic training), a separate binary so that unit_tests
# never links LibTorch. Included from tests/local.mk inside `if HAVE_GTEST`.
if HAVE_TORCH
check_PROGRAMS += tests/learning/model_tests
tests_learning_model_tests_SOURCES = tests/learning/model_test.cpp tests/learning/gpu_model_test.cpp
tests_learning_model_tests_CPPFLAGS = $(AM_CPPFLAGS) $(GTEST_CFLAGS) \
	-DPACML_SOURCE_DIR='"$(abs_top_srcdir)"'
tests_learning_model_tests_LDADD = libpacml_model.la libpacml_sim.la libpacml_core.la \
	$(YAML_CPP_LIBS) $(HWLOC_LIBS) $(TORCH_LIBS) $(GTEST_LIBS)
tests_learning_model_tests_LDFLAGS = $(TORCH_LDFLAGS)
TESTS += tests/learning/model_tests
endif
