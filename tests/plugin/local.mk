# tests/plugin/: the Slurm integration's tests (issue 6). Included inside
# `if HAVE_GTEST` of tests/local.mk.
#
#  plugin_tests  the engine, config, requests and graph reading (no Slurm)
#  shim_tests    job_submit_pacml.so / spank_pacml.so dlopened into a host
#                linked with libslurm, as Slurm loads them
#  slurm_integration.sh  a real 32-node Slurm cluster on this machine; needs
#                root and the Slurm daemons, so `contrib/pacml-dev test` runs
#                it after `make check` rather than from TESTS.
#  slurm_gpu_integration.sh  the same on 8 nodes of 4 GPUs (GRES), with
#                pacml.conf's `cluster:` (run by `contrib/pacml-dev test` too)
check_PROGRAMS += tests/plugin/plugin_tests tests/plugin/shim_tests
tests_plugin_plugin_tests_SOURCES = \
	tests/plugin/plugin_test_util.h \
	tests/plugin/parsing_test.cpp \
	tests/plugin/engine_test.cpp \
	tests/plugin/gpu_engine_test.cpp \
	tests/plugin/correction_engine_test.cpp \
	tests/plugin/graph_source_test.cpp \
	tests/plugin/compact_graph_test.cpp \
	tests/plugin/review_findings_test.cpp
tests_plugin_plugin_tests_CPPFLAGS = $(AM_CPPFLAGS) $(GTEST_CFLAGS) \
	-DPACML_SOURCE_DIR='"$(abs_top_srcdir)"' -DPACML_INSTALLED_BINDIR='"$(bindir)"'
tests_plugin_plugin_tests_LDADD = libpacml_plugin.la libpacml_core.la \
	$(YAML_CPP_LIBS) $(HWLOC_LIBS) $(GTEST_LIBS)

tests_plugin_shim_tests_SOURCES = tests/plugin/shim_test.cpp plugin/plugin_host.h
tests_plugin_shim_tests_CPPFLAGS = $(AM_CPPFLAGS) $(GTEST_CFLAGS) \
	-DPACML_SOURCE_DIR='"$(abs_top_srcdir)"' \
	-DPACML_JOB_SUBMIT_SO='"$(abs_top_builddir)/.libs/job_submit_pacml.so"' \
	-DPACML_SPANK_SO='"$(abs_top_builddir)/.libs/spank_pacml.so"'
# libpacml_plugin: the SPANK side's compact graphs, made here as sbatch would
tests_plugin_shim_tests_LDADD = libpacml_plugin.la libpacml_core.la $(YAML_CPP_LIBS) $(HWLOC_LIBS) \
	$(GTEST_LIBS) -lslurm -ldl

TESTS += tests/plugin/plugin_tests tests/plugin/shim_tests
dist_noinst_SCRIPTS += tests/plugin/slurm_integration.sh tests/plugin/slurm_soak.sh \
	tests/plugin/slurm_cluster_lib.sh tests/plugin/slurm_gpu_integration.sh
