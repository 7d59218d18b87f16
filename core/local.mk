# core/ sources, appended to libpacml_core.la (see Makefile.am).
libpacml_core_la_SOURCES += \
	core/util/error.h \
	core/util/embedded_files.h \
	core/util/hash.h core/util/hash.cpp \
	core/util/numbers.h core/util/numbers.cpp \
	core/util/yaml_input.h core/util/yaml_input.cpp \
	core/util/statistics.h core/util/text.h core/util/lru_cache.h \
	core/config/settings_table.h core/config/settings_table.cpp \
	core/config/bound_settings.h \
	core/config/plugin_config.h core/config/plugin_config.cpp \
	core/config/plugin_config_keys.h core/config/plugin_config_keys.cpp \
	core/config/gpu_train_config.h core/config/gpu_train_config.cpp \
	core/config/train_config.h core/config/train_config.cpp \
	core/config/train_config_keys.h core/config/train_config_keys.cpp \
	core/graph/layer_graph.h core/graph/layer_graph.cpp \
	core/graph/pipedream_reader.h core/graph/pipedream_reader.cpp \
	core/graph/native_graph.h core/graph/native_graph.cpp \
	core/graph/graph_files.h core/graph/graph_files.cpp \
	core/graph/step_graph.h core/graph/step_graph.cpp \
	core/graph/job_graph.h core/graph/job_graph.cpp \
	core/cluster/ramp_topology.h core/cluster/ramp_topology.cpp \
	core/cluster/cluster_state.h core/cluster/cluster_state.cpp \
	core/profile.h core/profile.cpp \
	core/world.h core/world.cpp \
	core/partition/split_counts.h core/partition/split_counts.cpp \
	core/partition/partitioned_graph.h core/partition/partitioned_graph.cpp \
	core/placement/block_shapes.h core/placement/block_shapes_inl.h core/placement/block_shapes.cpp \
	core/placement/first_fit.h core/placement/first_fit.cpp \
	core/placement/action_mask.h core/placement/action_mask.cpp \
	core/comm/ramp_collective.h core/comm/ramp_collective.cpp \
	core/comm/dependency_times.h core/comm/dependency_times.cpp \
	core/jct/lookahead.h core/jct/lookahead.cpp \
	core/jct/lookahead_cache.h core/jct/lookahead_cache.cpp \
	core/jct/estimator.h core/jct/estimator.cpp \
	core/policy/policy.h core/policy/baselines.h core/policy/baselines.cpp \
	core/policy/policy_factory.h core/policy/policy_factory.cpp \
	core/slurm/slurm_syntax.h core/slurm/slurm_syntax.cpp core/slurm/slurm_json.h \
	core/slurm/log_text.h core/slurm/log_text.cpp

# Option parsing on CLI11 (header-only): the pacml command's (sim/cli/) and
# pacml-train's (model/train_main.cpp), so neither includes the other's folder.
# Only args.cpp includes CLI11, so only it pays CLI11's compile time.
noinst_LTLIBRARIES += libpacml_args.la
libpacml_args_la_SOURCES = core/util/args.h core/util/args.cpp
libpacml_args_la_CPPFLAGS = $(AM_CPPFLAGS) $(CLI11_CFLAGS)
libpacml_args_la_LIBADD = libpacml_core.la

# The model zoo (issue: built-in model zoo) appends its own sources here.
include core/zoo/local.mk

# The learned policy (issue 5): observation encoding and LibTorch-free inference.
include core/features/local.mk
include core/inference/local.mk

# The GPU world (doc/ARCHITECTURE.md §2): GPU policies, placement, the learned
# GPU policy's features, network and policy, namespace pacml::gpu.
include core/gpu/local.mk

# hwloc machine description (issue 7): `pacml node describe`.
include core/hw/local.mk

# The physical profile (issue 14): cluster descriptions and parallelism
# strategies timed on them (doc/PHYSICAL.md).
libpacml_core_la_SOURCES += \
	core/cluster/cluster_spec.h core/cluster/cluster_spec.cpp \
	core/cluster/topology_yaml.h core/cluster/topology_yaml.cpp \
	core/cluster/plausible.h \
	core/cluster/cluster_presets.h \
	core/parallel/parallel_job.h core/parallel/parallel_job.cpp \
	core/parallel/parallel_plan.h \
	core/parallel/physical_constants.h core/parallel/physical_constants.cpp \
	core/parallel/collectives.h core/parallel/collectives.cpp \
	core/parallel/step_timeline.h core/parallel/step_timeline.cpp \
	core/parallel/step_ops.h core/parallel/step_ops.cpp \
	core/parallel/step_schedule.h core/parallel/step_schedule.cpp \
	core/parallel/memory_model.h core/parallel/memory_model.cpp \
	core/parallel/replicated_step.h core/parallel/replicated_step.cpp \
	core/parallel/strategies.h core/parallel/strategies.cpp \
	core/parallel/op_strategy.cpp \
	core/parallel/throughput_table.h core/parallel/throughput_table.cpp \
	core/parallel/physical_estimator.h core/parallel/physical_estimator.cpp \
	core/parallel/duration_model.h core/parallel/duration_model.cpp
nodist_libpacml_core_la_SOURCES = core/cluster/cluster_presets_data.cpp core/cluster/device_files_data.cpp
BUILT_SOURCES = core/cluster/cluster_presets_data.cpp core/cluster/device_files_data.cpp
CLEANFILES += core/cluster/cluster_presets_data.cpp core/cluster/device_files_data.cpp
# Each preset file is listed: the build embeds exactly these (a test checks
# that contrib/clusters holds no other).
CLUSTER_PRESET_FILES = \
	$(top_srcdir)/contrib/clusters/dgx-a100-16x8.yaml \
	$(top_srcdir)/contrib/clusters/dgx-a100-4x8.yaml \
	$(top_srcdir)/contrib/clusters/dgx-b200-4x8.yaml \
	$(top_srcdir)/contrib/clusters/dgx-h100-4x8.yaml \
	$(top_srcdir)/contrib/clusters/dgx-h200-4x8.yaml \
	$(top_srcdir)/contrib/clusters/dgx2-v100.yaml \
	$(top_srcdir)/contrib/clusters/paper-4x4x2.yaml \
	$(top_srcdir)/contrib/clusters/ramp-a100-16x8.yaml
# Each device file is listed too (a test checks contrib/devices holds no other).
DEVICE_FILES = \
	$(top_srcdir)/contrib/devices/a100.yaml \
	$(top_srcdir)/contrib/devices/a100-40gb.yaml \
	$(top_srcdir)/contrib/devices/b200.yaml \
	$(top_srcdir)/contrib/devices/gh200.yaml \
	$(top_srcdir)/contrib/devices/h100-sxm.yaml \
	$(top_srcdir)/contrib/devices/h200.yaml \
	$(top_srcdir)/contrib/devices/l40s.yaml \
	$(top_srcdir)/contrib/devices/mi300x.yaml \
	$(top_srcdir)/contrib/devices/v100.yaml
EXTRA_DIST += core/util/embed-files.sh contrib/clusters contrib/devices
# Text files compiled in: one rule (core/util/embed-files.sh) for every kind.
EMBED_FILES = sh $(top_srcdir)/core/util/embed-files.sh
core/cluster/cluster_presets_data.cpp: $(top_srcdir)/core/util/embed-files.sh $(CLUSTER_PRESET_FILES)
	$(AM_V_GEN)$(MKDIR_P) core/cluster && \
	  $(EMBED_FILES) core/cluster/cluster_presets.h pacml cluster_presets $(CLUSTER_PRESET_FILES) > $@.tmp && mv $@.tmp $@
core/cluster/device_files_data.cpp: $(top_srcdir)/core/util/embed-files.sh $(DEVICE_FILES)
	$(AM_V_GEN)$(MKDIR_P) core/cluster && \
	  $(EMBED_FILES) core/cluster/cluster_presets.h pacml builtin_device_files $(DEVICE_FILES) > $@.tmp && mv $@.tmp $@

# The site correction of predicted step times (issue 31): its data, its file
# and its application to a prediction and a time limit (doc/PHYSICAL.md §11).
libpacml_core_la_SOURCES += \
	core/correction/step_correction.h core/correction/step_correction.cpp \
	core/correction/correction_file.h core/correction/correction_file.cpp
