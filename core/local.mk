# core/ sources, appended to libpacml_core.la (see Makefile.am).
libpacml_core_la_SOURCES += \
	core/util/error.h \
	core/util/numbers.h core/util/numbers.cpp \
	core/util/yaml_input.h core/util/yaml_input.cpp \
	core/graph/layer_graph.h core/graph/layer_graph.cpp \
	core/graph/pipedream_reader.h core/graph/pipedream_reader.cpp \
	core/graph/native_graph.h core/graph/native_graph.cpp \
	core/graph/graph_files.h core/graph/graph_files.cpp \
	core/graph/step_graph.h core/graph/step_graph.cpp \
	core/graph/job_graph.h core/graph/job_graph.cpp \
	core/cluster/ramp_topology.h core/cluster/ramp_topology.cpp \
	core/cluster/cluster_state.h core/cluster/cluster_state.cpp \
	core/profile.h core/profile.cpp \
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
	core/slurm/slurm_syntax.h core/slurm/slurm_syntax.cpp

# The model zoo (issue: built-in model zoo) appends its own sources here.
include core/zoo/local.mk

# The learned policy (issue 5): observation encoding and LibTorch-free inference.
include core/features/local.mk
include core/inference/local.mk

# hwloc machine description (issue 7): `pacml node describe`.
include core/hw/local.mk
