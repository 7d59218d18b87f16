#include "sim/experiment/experiment_keys.h"

namespace pacml::sim {

const char* const kPaperStyleExperiment = "a paper-style workload (type: synthetic or trace)";
const char* const kFittedExperiment = "workload: {kind: fitted}";

namespace {

using T = SettingType;

SettingKey paper(SettingKey key) {
  return key.only_with(kPaperStyleExperiment);
}

SettingKey fitted(SettingKey key) {
  return key.only_with(kFittedExperiment);
}

}  // namespace

const SettingsTable& experiment_settings() {
  static const SettingsTable table(
      "experiment key",
      {SettingKey("pacml_experiment", T::kInteger, "format version: 1 (required)").range(1, 1000),
       SettingKey("name", T::kText, "shown in tables and plots").defaults_to("experiment"),
       SettingKey("description", T::kText, "free text"),
       SettingKey("world", T::kChoice,
                  "paper: the paper's RAMP episodes (type: synthetic or trace); gpu: jobs on a "
                  "GPU cluster (kind: fitted). Must agree with the workload")
           .one_of({"paper", "gpu"})
           .defaults_to("the workload's"),
       SettingKey("workload", T::kMapping,
                  "the jobs: type: synthetic, type: trace or kind: fitted (tables below; "
                  "required)"),
       SettingKey("policies", T::kList, "the policies compared")
           .defaults_to("para_max; fitted: requested, min_feasible, para_max"),
       SettingKey("seeds", T::kText,
                  "N (seeds 0..N-1), \"3,5,8\", \"10..19\", a list or "
                  "{first, count} (table `experiment.seeds`)")
           .defaults_to("one seed, 0"),
       paper(SettingKey("profile", T::kChoice, "the JCT model")
                 .one_of({"physical", "reference"})
                 .defaults_to("physical")),
       paper(SettingKey("topology", T::kText,
                        "the RAMP cluster: CxRxS or a mapping "
                        "(`pacml config keys topology`)")
                 .defaults_to("4x4x2")),
       paper(SettingKey("steps", T::kInteger, "training steps per job")
                 .range(1, 1e9)
                 .defaults_to("50")),
       paper(SettingKey("horizon", T::kText, "episode length in profile time units, or inf")
                 .defaults_to("1e6")),
       paper(SettingKey("beta", T::kList,
                        "deadline distributions: A-D, uniform(lo,hi), "
                        "fixed(v) or a number")
                 .defaults_to("A")),
       paper(SettingKey("threads", T::kInteger, "worker threads; 0 = all cores")
                 .range(0, 1024)
                 .defaults_to("0")),
       fitted(SettingKey("cluster", T::kText, "a cluster preset or file")
                  .defaults_to("ramp-a100-16x8")),
       fitted(SettingKey("throughput_table", T::kText,
                         "a directory of measured scaling tables (ElasticFlow's MODEL.csv "
                         "format), relative to this file")),
       fitted(SettingKey("correction", T::kText,
                         "a site correction file (`pacml calibrate --history`), relative to this "
                         "file: the simulated step times and the predictions are corrected")),
       fitted(SettingKey("admission", T::kChoice, "place now or block, wait in a queue, or both")
                  .one_of({"immediate", "queue", "both"})
                  .defaults_to("both")),
       fitted(SettingKey("order", T::kChoice, "the order waiting jobs are tried in")
                  .one_of({"edf", "deadline", "fifo", "submission"})
                  .defaults_to("edf"))});
  return table;
}

const SettingsTable& synthetic_workload_settings() {
  static const SettingsTable table(
      "synthetic workload key",
      {SettingKey("type", T::kChoice, "the paper's generator")
           .one_of({"synthetic"})
           .defaults_to("synthetic"),
       SettingKey("graphs", T::kList, "graph files or zoo names, drawn uniformly (required)"),
       SettingKey("interarrival", T::kNumber, "mean time between arrivals, profile units")
           .range(1e-300, INFINITY)
           .defaults_to("1000"),
       SettingKey("interarrival_distribution", T::kChoice, "constant or Poisson arrivals")
           .one_of({"fixed", "exponential"})
           .defaults_to("fixed"),
       SettingKey("first_arrival", T::kNumber, "time of the first arrival")
           .range(0, INFINITY)
           .defaults_to("0"),
       SettingKey("max_jobs", T::kInteger, "jobs per episode; -1 = until the horizon")
           .range(-1, 1099511627776.0)
           .defaults_to("-1")});
  return table;
}

const SettingsTable& trace_workload_settings() {
  static const SettingsTable table(
      "trace workload key",
      {SettingKey("type", T::kChoice, "replay a job trace").one_of({"trace"}),
       SettingKey("format", T::kChoice, "the trace's format (required)")
           .one_of({"elasticflow", "swf", "sacct", "squeue-json", "pacml-log"}),
       SettingKey("path", T::kText, "the trace file (required)"),
       SettingKey("model_map", T::kMapping, "trace model name: zoo name or graph file"),
       SettingKey("unknown_model", T::kText, "reject, skip, or a graph for unmapped models")
           .defaults_to("reject"),
       SettingKey("models", T::kList, "graphs for traces that name no model"),
       SettingKey("time_scale", T::kNumber, "trace seconds to profile units")
           .range(1e-300, INFINITY)
           .defaults_to("1"),
       SettingKey("gpu_scale", T::kNumber, "trace GPUs per pacml worker")
           .range(1e-300, INFINITY)
           .defaults_to("1"),
       SettingKey("beta_rule", T::kChoice, "where a job's beta comes from")
           .one_of({"work", "slack", "distribution"})
           .defaults_to("work"),
       SettingKey("steps_rule", T::kChoice, "where a job's steps come from")
           .one_of({"auto", "iterations", "work", "fixed"})
           .defaults_to("auto"),
       SettingKey("iteration_scale", T::kNumber, "trace iterations per pacml step")
           .range(1e-300, INFINITY)
           .defaults_to("1"),
       SettingKey("max_jobs", T::kInteger, "the first N jobs; -1 = all")
           .range(-1, 1099511627776.0)
           .defaults_to("-1"),
       SettingKey("skip_bad_lines", T::kBoolean, "skip and count bad lines instead of failing")
           .defaults_to("false")});
  return table;
}

const SettingsTable& fitted_workload_settings() {
  static const SettingsTable table(
      "fitted workload key",
      {SettingKey("kind", T::kChoice, "jobs drawn from a fitted workload (required)")
           .one_of({"fitted"}),
       SettingKey("params", T::kText, "a `pacml workload fit` file or a built-in name (required)"),
       SettingKey("load", T::kNumber, "x the fitted arrival rate")
           .range(1e-6, 1e6)
           .defaults_to("1"),
       SettingKey("jobs", T::kInteger, "jobs per seed").range(1, 1e8).defaults_to("2000"),
       SettingKey("deadline", T::kChoice, "ElasticFlow's slack rule or the paper's beta rule")
           .one_of({"slack", "beta"})
           .defaults_to("slack"),
       SettingKey("beta", T::kText, "with deadline: beta, the beta distribution")
           .defaults_to("A")});
  return table;
}

const SettingsTable& seed_range_settings() {
  static const SettingsTable table(
      "seeds key",
      {SettingKey("first", T::kInteger, "the first seed").range(0, 1L << 62).defaults_to("0"),
       SettingKey("count", T::kInteger, "how many consecutive seeds")
           .range(1, 1000000)
           .defaults_to("1")});
  return table;
}

}  // namespace pacml::sim
