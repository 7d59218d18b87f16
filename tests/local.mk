# tests/: one GoogleTest binary for the libraries, plus command-line tests.
# Sub-folders append to tests_unit_tests_SOURCES and TESTS through their own
# local.mk fragments, one per top-level test folder.
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
# tests/plugin/ (its own binaries) lives inside this conditional.
include tests/plugin/local.mk
endif
# tests/X/ mirrors X/ (tests/README.md). These fragments hold their own
# `if HAVE_GTEST`: tests/core and tests/sim append to tests_unit_tests_SOURCES,
# tests/model builds the LibTorch binary, and tests/sim lists the command-line
# tests, which run without GoogleTest.
include tests/core/local.mk
include tests/sim/local.mk
include tests/model/local.mk

TESTS += tests/contrib/probe_test.sh tests/contrib/results_scripts_test.sh
dist_noinst_SCRIPTS += tests/contrib/probe_test.sh tests/contrib/results_scripts_test.sh
EXTRA_DIST += tests/README.md tests/fixtures

