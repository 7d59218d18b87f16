# tests/: one GoogleTest binary for the libraries, plus command-line tests.
# Sub-folders append to tests_unit_tests_SOURCES and TESTS through their own
# local.mk fragments.
AM_TESTS_ENVIRONMENT = \
	PACML=$(abs_top_builddir)/pacml; export PACML; \
	PACML_SOURCE_DIR=$(abs_top_srcdir); export PACML_SOURCE_DIR; \
	: $${PACML_SHARED_DATA:=$(abs_top_srcdir)/../shared/data}; export PACML_SHARED_DATA;

include tests/docs/local.mk

if HAVE_GTEST
check_PROGRAMS += tests/unit_tests
tests_unit_tests_SOURCES = tests/test_data.h
tests_unit_tests_CPPFLAGS = $(AM_CPPFLAGS) $(GTEST_CFLAGS) -DPACML_SOURCE_DIR='"$(abs_top_srcdir)"'
tests_unit_tests_LDADD = libpacml_sim.la libpacml_args.la libpacml_core.la $(YAML_CPP_LIBS) $(HWLOC_LIBS) $(GTEST_LIBS)
TESTS += tests/unit_tests
# These fragments live inside the conditional that defines
# tests_unit_tests_SOURCES.
include tests/plugin/local.mk
include tests/learning/local.mk
endif
# These append to tests_unit_tests_SOURCES inside their own `if HAVE_GTEST`,
# and list command-line tests that run without GoogleTest.
include tests/core/local.mk
include tests/sim/local.mk

TESTS += tests/contrib/probe_test.sh tests/contrib/results_scripts_test.sh
dist_noinst_SCRIPTS += tests/contrib/probe_test.sh tests/contrib/results_scripts_test.sh
EXTRA_DIST += tests/fixtures

