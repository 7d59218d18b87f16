# tests/fuzz: a fuzz target per parser, all in one binary, tests/fuzz/pacml-fuzz
# (fuzz_target.h explains how to add one: a fuzz_<name>.cpp file, its line
# below and a seed folder tests/fuzz/corpus/<name>/).
#
#  ./configure --enable-fuzzing CXX=clang++ CC=clang   then
#  make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS="pipedream swf"]   fuzz each target
#  make fuzz-smoke                                          a few seconds each
#
# Every build (fuzzing or not) replays the seed corpora and the committed crash
# reproducers (tests/fuzz/regressions/<name>/) through the targets in make check.
check_PROGRAMS += tests/fuzz/pacml-fuzz
tests_fuzz_pacml_fuzz_SOURCES = \
	tests/fuzz/fuzz_target.h tests/fuzz/fuzz_registry.cpp \
	tests/fuzz/fuzz_graph_util.h tests/fuzz/fuzz_trace_util.h \
	tests/fuzz/fuzz_pipedream.cpp \
	tests/fuzz/fuzz_native_graph.cpp \
	tests/fuzz/fuzz_trace_elasticflow.cpp \
	tests/fuzz/fuzz_trace_swf.cpp \
	tests/fuzz/fuzz_trace_sacct.cpp \
	tests/fuzz/fuzz_trace_squeue_json.cpp \
	tests/fuzz/fuzz_trace_pacml_log.cpp \
	tests/fuzz/fuzz_slurm_fields.cpp \
	tests/fuzz/fuzz_experiment.cpp \
	tests/fuzz/fuzz_device_model.cpp \
	tests/fuzz/fuzz_topology.cpp \
	tests/fuzz/fuzz_policy.cpp \
	tests/fuzz/fuzz_sim_values.cpp \
	tests/fuzz/fuzz_weights.cpp \
	tests/fuzz/fuzz_pacml_conf.cpp \
	tests/fuzz/fuzz_plugin_options.cpp \
	tests/fuzz/fuzz_compact_graph.cpp \
	tests/fuzz/fuzz_spank_args.cpp \
	tests/fuzz/fuzz_sched_params.cpp \
	tests/fuzz/fuzz_cluster.cpp \
	tests/fuzz/fuzz_throughput_table.cpp \
	tests/fuzz/fuzz_workload.cpp \
	tests/fuzz/fuzz_probe.cpp \
	tests/fuzz/fuzz_history.cpp \
	tests/fuzz/fuzz_history_sacct_json.cpp \
	tests/fuzz/fuzz_correction.cpp
tests_fuzz_pacml_fuzz_LDADD = libpacml_plugin.la libpacml_sim.la libpacml_core.la \
	$(YAML_CPP_LIBS) $(HWLOC_LIBS)
if ENABLE_FUZZING
tests_fuzz_pacml_fuzz_SOURCES += tests/fuzz/fuzz_main.cpp
tests_fuzz_pacml_fuzz_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
else
tests_fuzz_pacml_fuzz_SOURCES += tests/fuzz/replay_main.cpp
endif
EXTRA_DIST += tests/fuzz/README.md tests/fuzz/corpus tests/fuzz/regressions tests/fuzz/replay_main.cpp \
	tests/fuzz/fuzz_main.cpp

TESTS += tests/fuzz/fuzz_regression_test.sh
dist_noinst_SCRIPTS += tests/fuzz/fuzz_regression_test.sh tests/fuzz/run-fuzz.sh

FUZZ_SECONDS = 60
FUZZ_SMOKE_SECONDS = 2
FUZZ_TARGETS =
FUZZ_OUT = fuzz-out
if ENABLE_FUZZING
fuzz: tests/fuzz/pacml-fuzz$(EXEEXT)
	$(SHELL) $(srcdir)/tests/fuzz/run-fuzz.sh tests/fuzz/pacml-fuzz$(EXEEXT) \
	  $(srcdir)/tests/fuzz $(FUZZ_OUT) $(FUZZ_SECONDS) $(FUZZ_TARGETS)
else
fuzz:
	@echo "make fuzz: configure a build with --enable-fuzzing CXX=clang++ CC=clang" >&2; exit 2
endif
fuzz-smoke:
	$(MAKE) $(AM_MAKEFLAGS) fuzz FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS)
.PHONY: fuzz fuzz-smoke
