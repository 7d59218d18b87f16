# plugin/: the Slurm integration (issue 6).
#
#  libpacml_plugin.la   the decision engine (engine, decision: the steps both
#                       worlds share; ramp_decision, gpu_decision: the two
#                       pipelines), config, requests, graph reading
#                       (pure C++ over core/, no Slurm types; unit-tested)
#  job_submit_pacml.la  job_submit/pacml: C ABI shim over the engine
#  spank_pacml.la       the users' --pacml-* options
#
# Both plugins install into $(slurmplugindir): configure
# --with-slurm-plugindir=/usr/lib/x86_64-linux-gnu/slurm-wlm for Debian's
# slurmctld (default LIBDIR/slurm-wlm), or add that directory to PluginDir=.
noinst_LTLIBRARIES += libpacml_plugin.la
libpacml_plugin_la_SOURCES = \
	plugin/config.h plugin/config.cpp \
	plugin/request.h plugin/request.cpp \
	plugin/regular_file.h plugin/regular_file.cpp \
	plugin/graph_text.h plugin/graph_text.cpp \
	plugin/compact_graph.h plugin/compact_graph.cpp \
	plugin/user_graph.h plugin/user_graph.cpp \
	plugin/spank_step.h plugin/spank_step.cpp \
	plugin/graph_source.h plugin/graph_source.cpp \
	plugin/decision_log.h plugin/decision_log.cpp \
	plugin/decision_id.h plugin/decision_id.cpp \
	plugin/messages.h plugin/messages.cpp \
	plugin/gpu_plan.h plugin/gpu_plan.cpp \
	plugin/step_correction_source.h plugin/step_correction_source.cpp \
	plugin/active_config.h plugin/active_config.cpp \
	plugin/engine_state.h plugin/engine_state.cpp \
	plugin/decision.h plugin/decision.cpp \
	plugin/ramp_decision.h plugin/ramp_decision.cpp \
	plugin/gpu_decision.h plugin/gpu_decision.cpp \
	plugin/engine.h plugin/engine.cpp
# pacml:NAME inside slurmctld: the installed models (model/local.mk's modelsdir).
# PACML_STEP_REPORT in a job's plan: the installed pacml-report-steps.
libpacml_plugin_la_CPPFLAGS = $(AM_CPPFLAGS) -DPACML_INSTALLED_MODELS_DIR='"$(pkgdatadir)/models"' \
	-DPACML_INSTALLED_BINDIR='"$(bindir)"'
dist_bin_SCRIPTS = contrib/slurm/pacml-report-steps

# slurmplugindir comes from configure (--with-slurm-plugindir).
slurmplugin_LTLIBRARIES = job_submit_pacml.la spank_pacml.la

# Slurm's symbols stay undefined: they resolve against libslurmfull inside
# slurmctld (and libslurm in the test host). Only the plugin ABI is exported,
# so core's C++ symbols cannot clash with anything in slurmctld.
job_submit_pacml_la_SOURCES = plugin/job_submit_pacml.cpp plugin/job_env.h plugin/job_env.cpp \
	plugin/ctld_poller.h plugin/ctld_poller.cpp plugin/slurm_release.h
job_submit_pacml_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(top_srcdir)/plugin/job_submit_pacml.map
EXTRA_job_submit_pacml_la_DEPENDENCIES = plugin/job_submit_pacml.map
job_submit_pacml_la_LIBADD = libpacml_plugin.la libpacml_core.la $(YAML_CPP_LIBS) $(HWLOC_LIBS) -lpthread

# The SPANK plugin parses users' graph files in sbatch/salloc/srun with
# slurmctld's parsers: only those sources, not all of core/.
spank_pacml_la_SOURCES = plugin/spank_pacml.cpp plugin/gpu_plan.h plugin/gpu_plan.cpp \
	core/slurm/log_text.h core/slurm/log_text.cpp \
	plugin/spank_step.h plugin/spank_step.cpp \
	plugin/user_graph.h plugin/user_graph.cpp \
	plugin/compact_graph.h plugin/compact_graph.cpp \
	plugin/graph_text.h plugin/graph_text.cpp \
	plugin/regular_file.h plugin/regular_file.cpp \
	core/graph/graph_files.h core/graph/graph_files.cpp \
	core/graph/layer_graph.h core/graph/layer_graph.cpp \
	core/graph/native_graph.h core/graph/native_graph.cpp \
	core/graph/pipedream_reader.h core/graph/pipedream_reader.cpp \
	core/util/yaml_input.h core/util/yaml_input.cpp \
	core/util/numbers.h core/util/numbers.cpp \
	core/util/hash.h core/util/hash.cpp
spank_pacml_la_CPPFLAGS = $(AM_CPPFLAGS) -DPACML_INSTALLED_BINDIR='"$(bindir)"'
spank_pacml_la_LIBADD = $(YAML_CPP_LIBS)
spank_pacml_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(top_srcdir)/plugin/spank_pacml.map
EXTRA_spank_pacml_la_DEPENDENCIES = plugin/spank_pacml.map

# Decision latency of the real job_submit_pacml.so, driven through dlopen
# with libslurm (like the unit-test host): `plugin/pacml-plugin-bench`.
noinst_PROGRAMS += plugin/pacml-plugin-bench
plugin_pacml_plugin_bench_SOURCES = plugin/bench_job_submit.cpp plugin/plugin_host.h
plugin_pacml_plugin_bench_CPPFLAGS = $(AM_CPPFLAGS) \
	-DPACML_JOB_SUBMIT_SO='"$(abs_top_builddir)/.libs/job_submit_pacml.so"'
plugin_pacml_plugin_bench_LDADD = libpacml_plugin.la libpacml_core.la $(YAML_CPP_LIBS) \
	$(HWLOC_LIBS) -lslurm -ldl

EXTRA_DIST += plugin/README.md plugin/job_submit_pacml.map plugin/spank_pacml.map \
	contrib/slurm/examples
