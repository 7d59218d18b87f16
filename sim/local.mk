# sim/: the offline simulator library and the `pacml` command-line tool.

# The simulator library (event-driven cluster simulation, workloads, traces,
# experiments) — its sources are listed in sim/sim.mk.
noinst_LTLIBRARIES += libpacml_sim.la
libpacml_sim_la_SOURCES =
libpacml_sim_la_LIBADD = libpacml_core.la

# Option parsing (libpacml_args.la, core/util/args.h) is core's: pacml-train
# uses it too.

bin_PROGRAMS += pacml
pacml_SOURCES = \
	sim/cli/main.cpp \
	sim/cli/command.h \
	sim/cli/graph_source.h sim/cli/graph_source.cpp \
	sim/cli/table.h sim/cli/table.cpp \
	sim/cli/cpu_timer.h \
	sim/cli/cmd_graph.cpp \
	sim/cli/cmd_estimate.cpp \
	sim/cli/estimate_physical.h sim/cli/estimate_physical.cpp \
	sim/cli/parallel_source.h sim/cli/parallel_source.cpp \
	sim/cli/cmd_topology.cpp \
	sim/cli/cmd_node.cpp \
	sim/cli/cmd_bench.cpp \
	sim/cli/cmd_bench_gpu_policy.cpp \
	sim/cli/cmd_train.cpp
pacml_LDADD = libpacml_args.la libpacml_sim.la libpacml_core.la $(YAML_CPP_LIBS) $(HWLOC_LIBS)

include sim/sim.mk
