// A workload generator fitted to real traces (sim/README.md, "Fitted
// workloads"): the numbers a person can read in a small YAML file, and jobs
// drawn from them for the GPU replay (sim/gpu/replay.h).
//
//   pacml_workload: 1
//   source: cluster01.csv cluster02.csv      # what it was fitted on
//   arrivals_per_hour: [12.1, 9.8, ...]     # 24 rates by hour of day
//   models:                                  # (model, global batch) mix
//     - {model: resnet50, batch: 128, share: 0.21}
//     - {model: gpt2, batch: 64, share: 0.1, layers: 24, hidden: 1024, heads: 16}
//     - {graph: ${PACML_SHARED_DATA}/pipedream/vgg16.txt, profiled_batch: 64, batch: 128,
//        share: 0.1}
//   iterations: {log_mean: 8.9, log_sd: 1.4, min: 100, max: 500000}
//   gpus: {1: 0.61, 2: 0.12, 4: 0.10, 8: 0.12, 16: 0.03, 32: 0.02}
//   slack: {min: 0.5, max: 1.5}               # deadline = submit + slack × duration
//
// The deadline follows ElasticFlow's construction: the job's duration on the
// GPUs it requested (the physical model's), times a uniform slack.
#pragma once

#include <istream>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/config/settings_table.h"
#include "core/parallel/parallel_job.h"
#include "core/util/embedded_files.h"
#include "sim/engine/beta_distribution.h"
#include "sim/gpu/replay.h"
#include "sim/gpu/trace.h"
#include "sim/trace/trace.h"

namespace pacml::gpu {

struct ModelShare {
  std::string model;  // as the trace names it (ElasticFlow names or zoo names)
  int batch = 0;
  double share = 0;
  // A zoo transformer resized (layers, hidden, heads; 0: the model's own),
  // e.g. to hold models out of training.
  TransformerShape shape;
  // Instead of a zoo model: a profiled graph file (PipeDream or native YAML;
  // ${VAR} expanded, relative to the workload file) measured at profiled_batch.
  std::string graph;
  int profiled_batch = kDefaultProfiledBatch;
};

struct FittedWorkload {
  std::string source;
  std::vector<double> arrivals_per_hour;  // 24 values, jobs per hour, by hour of day
  std::vector<ModelShare> models;         // shares sum to 1
  double log_iterations_mean = 0, log_iterations_sd = 0;
  long min_iterations = 1, max_iterations = 1;
  std::map<int, double> gpus;  // requested GPUs -> share
  double slack_min = 0.5, slack_max = 1.5;
  long jobs_fitted = 0;
};

// Fits the parameters to ElasticFlow-style records (model, batch,
// iterations, requested GPUs, submission, deadline, duration). Throws
// InputError if no record has what the fit needs.
FittedWorkload fit_workload(const std::vector<sim::TraceRecord>& records,
                            const std::string& source);

void write_workload(std::ostream& out, const FittedWorkload& workload);
// Every error names file:line: unknown keys, shares that are not
// probabilities, 24 rates, iterations bounds, slack bounds.
FittedWorkload load_workload(std::istream& in, const std::string& source);
// The keys of a fitted workload file (`pacml config keys workload.params`), of
// each entry of its `models`, of `iterations` and of `slack`.
const SettingsTable& fitted_params_settings();
const SettingsTable& fitted_model_settings();
const SettingsTable& fitted_iterations_settings();
const SettingsTable& fitted_slack_settings();
FittedWorkload load_workload_file(const std::string& path);

// The workloads of contrib/workloads compiled in (core/util/embed-files.sh),
// by file name without .yaml, so an experiment can name one from anywhere.
const EmbeddedFiles& builtin_workload_files();
// A built-in workload's text, or null for another name.
inline const char* builtin_workload_text(const std::string& name) {
  return find_embedded(builtin_workload_files(), name);
}
inline bool is_builtin_workload(const std::string& name) {
  return builtin_workload_text(name) != nullptr;
}
// A built-in workload's name, or a workload file.
FittedWorkload load_workload_named(const std::string& name_or_path);

// Jobs drawn one at a time with `seed`: arrivals at `load` × the fitted rates
// (a Poisson process whose rate follows the hour of day), deadlines from the
// slack and each job's duration on its requested GPUs (capped at the
// cluster's GPUs) — or, given `beta`, the paper's rule: deadline = submit +
// β × the job's sequential run time (on the fewest GPUs it fits on, one for
// most jobs), β drawn from that distribution. Deterministic for a seed. As a
// JobSource it feeds a replay without holding the jobs (`pacml
// bench-sim`'s million jobs).
class FittedJobGenerator {
 public:
  // Throws InputError unless load > 0.
  FittedJobGenerator(const FittedWorkload& workload, double load, std::uint64_t seed,
                     DurationModel& durations, const std::optional<sim::BetaSpec>& beta = {});
  Job next();

 private:
  double deadline_allowance(const Job& job);

  const FittedWorkload& workload_;
  double load_, peak_;  // peak_: jobs per second at the busiest hour
  Rng rng_;
  JobKinds kinds_;
  DurationModel& durations_;
  double time_ = 0;
  long drawn_ = 0;
  std::optional<sim::BetaSampler> beta_;
};

// The generator's first `jobs` jobs.
std::vector<Job> generate_jobs(const FittedWorkload& workload, double load, long jobs,
                               std::uint64_t seed, DurationModel& durations,
                               const std::optional<sim::BetaSpec>& beta = {});

}  // namespace pacml::gpu
