# sim/ simulator sources (appended to libpacml_sim_la_SOURCES) and its commands (pacml_SOURCES).
libpacml_sim_la_SOURCES += \
	sim/engine/workload.h \
	sim/engine/beta_distribution.h sim/engine/beta_distribution.cpp \
	sim/engine/environment.h sim/engine/environment.cpp \
	sim/engine/episode_fields.h sim/engine/episode_fields.cpp \
	sim/engine/episode.h sim/engine/episode.cpp \
	sim/engine/rollout_search.h sim/engine/rollout_search.cpp \
	sim/engine/policy_factory.h sim/engine/policy_factory.cpp \
	sim/workload/paths.h sim/workload/paths.cpp \
	sim/workload/graph_catalog.h sim/workload/graph_catalog.cpp \
	sim/workload/synthetic.h sim/workload/synthetic.cpp \
	sim/trace/trace.h sim/trace/trace_readers.cpp \
	sim/trace/trace_lines.h sim/trace/trace_lines.cpp \
	sim/trace/format_readers.h sim/trace/elasticflow_reader.cpp sim/trace/swf_reader.cpp \
	sim/trace/sacct_reader.cpp sim/trace/slurm_json_readers.cpp \
	sim/trace/trace_workload.h sim/trace/trace_workload.cpp \
	sim/experiment/experiment.h sim/experiment/experiment.cpp \
	sim/experiment/experiment_keys.h sim/experiment/experiment_keys.cpp \
	sim/experiment/default_experiment.cpp \
	sim/experiment/summary.h sim/experiment/summary.cpp \
	sim/experiment/evaluation.h sim/experiment/evaluation.cpp \
	sim/experiment/blocking_bound.h sim/experiment/blocking_bound.cpp \
	sim/report/csv.h sim/report/csv.cpp \
	sim/report/text_table.h sim/report/text_table.cpp \
	sim/report/plots.h sim/report/plots.cpp \
	sim/report/progress.h sim/report/progress.cpp \
	sim/calibration/scaling_points.h sim/calibration/scaling_points.cpp \
	sim/calibration/calibration.h sim/calibration/calibration.cpp \
	sim/calibration/elasticflow_archive.h sim/calibration/elasticflow_archive.cpp \
	sim/calibration/probe_file.h sim/calibration/probe_file.cpp \
	sim/calibration/device_fit.h sim/calibration/device_fit.cpp \
	sim/gpu/replay.h sim/gpu/replay.cpp \
	sim/gpu/met_bound.h sim/gpu/met_bound.cpp \
	sim/gpu/hindsight_search.h sim/gpu/hindsight_search.cpp \
	sim/gpu/trace.h sim/gpu/trace.cpp \
	sim/gpu/fitted_workload.h sim/gpu/fitted_workload.cpp \
	sim/gpu/evaluation.h sim/gpu/evaluation.cpp \
	sim/history/history_records.h sim/history/decision_log_reader.cpp \
	sim/history/accounting_reader.cpp sim/history/joined_csv.cpp \
	sim/history/sacct_json_reader.cpp \
	sim/history/job_report.h sim/history/job_report.cpp \
	sim/history/correction_fit.h sim/history/correction_fit.cpp \
	sim/history/corrected_predictions.h sim/history/corrected_predictions.cpp \
	sim/history/history_simulation.h sim/history/history_simulation.cpp
nodist_libpacml_sim_la_SOURCES = sim/gpu/builtin_workloads_data.cpp
BUILT_SOURCES += sim/gpu/builtin_workloads_data.cpp
CLEANFILES += sim/gpu/builtin_workloads_data.cpp
# The fitted workloads compiled in (`params: elasticflow-01-05` works anywhere).
WORKLOAD_FILES = $(top_srcdir)/contrib/workloads/elasticflow-01-05.yaml
sim/gpu/builtin_workloads_data.cpp: $(top_srcdir)/core/util/embed-files.sh $(top_srcdir)/sim/sim.mk $(WORKLOAD_FILES)
	$(AM_V_GEN)$(MKDIR_P) sim/gpu && \
	  $(EMBED_FILES) sim/gpu/fitted_workload.h pacml::gpu builtin_workload_files $(WORKLOAD_FILES) > $@.tmp && mv $@.tmp $@

pacml_SOURCES += \
	sim/cli/cmd_simulate.cpp \
	sim/cli/cmd_evaluate.cpp \
	sim/cli/cmd_replay.cpp \
	sim/cli/world_option.h sim/cli/world_option.cpp \
	sim/cli/replay_gpu.h sim/cli/replay_gpu.cpp \
	sim/cli/replay_options.h sim/cli/replay_options.cpp \
	sim/cli/list_option.h \
	sim/cli/cmd_bench_sim.cpp \
	sim/cli/cmd_calibrate.cpp \
	sim/cli/history_calibrate.h sim/cli/history_calibrate.cpp \
	sim/cli/cmd_history.cpp \
	sim/cli/history_simulate.h sim/cli/history_simulate.cpp \
	sim/cli/cmd_device.cpp \
	sim/cli/probe_report.h sim/cli/probe_report.cpp \
	sim/cli/cmd_throughput.cpp \
	sim/cli/cmd_config.cpp \
	sim/cli/cmd_bench_physical.cpp \
	sim/cli/cmd_workload.cpp

EXTRA_DIST += sim/README.md contrib/experiments/paper.yaml contrib/experiments/default.yaml \
	contrib/experiments/paper-zoo.yaml contrib/experiments/heldout-zoo.yaml contrib/experiments/heldout-pipedream.yaml contrib/experiments/heldout.sh contrib/experiments/heldout_table.py contrib/experiments/replace_block.py contrib/experiments/results_lib.sh contrib/experiments/probe-example.sh contrib/experiments/estimate-example.sh contrib/experiments/history-loop.sh contrib/experiments/elasticflow-replay.sh contrib/experiments/elasticflow_table.py contrib/experiments/default-experiment.sh contrib/experiments/default_experiment_table.py \
	contrib/slurm/evaluate-array.sbatch contrib/workloads
