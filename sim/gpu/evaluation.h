// Fitted-workload experiments (workload: {kind: fitted, ...}; see
// sim/experiment/experiment.h): for each seed, jobs drawn from the fitted
// workload are replayed on a GPU cluster (sim/gpu/replay.h) under every
// (admission, policy); the runs are summarised as mean ± 95% CI over seeds.
// `pacml evaluate` runs such an experiment, and `pacml workload run` builds
// one from its options, so both report the same figures.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/parallel/physical_estimator.h"
#include "sim/experiment/experiment.h"
#include "sim/experiment/summary.h"
#include "sim/gpu/replay.h"

namespace pacml::gpu {

// One replay: a seed's jobs under one (admission, policy).
struct Run {
  std::uint64_t seed = 0;
  ReplayStats stats;
};

// The runs of one (policy, admission) over seeds.
struct GroupSummary {
  std::string policy, admission;
  int seeds = 0;
  double arrived = 0;  // mean jobs per seed
  sim::Stat deadline_met_rate, blocking_rate, unservable_rate, gpu_hours, gpu_hours_per_met,
      utilisation, queue_delay, mean_gpus;
  sim::Stat turned_away_rate, no_start_rate, late_rate;  // the misses' causes (sim/gpu/replay.h)
};

// What one policy decided for one kind of job (model, shape and batch),
// over every seed: the decision mix (model/README.md).
struct DecisionMixRow {
  std::string policy, admission, job;
  long jobs = 0, started = 0, met = 0;
  double gpus = 0;              // summed over started jobs
  std::map<int, long> by_gpus;  // started jobs by GPU count
};

struct Evaluation {
  std::string cluster;    // the cluster's one-line summary
  std::vector<Run> runs;  // admission-major, then policy, then seed
  std::vector<GroupSummary> groups;
  std::vector<DecisionMixRow> mix;  // admission, policy, then job kind by name
  double wall_seconds = 0;
};

// The estimator of the experiment's cluster (a preset or a file), with its
// throughput table if it names one (read here: a bad cell names file:line).
std::shared_ptr<const PhysicalEstimator> fitted_estimator(const sim::ExperimentSpec& spec);

// Runs every (admission, policy, seed) of a fitted-workload experiment on
// `estimator`'s cluster, one thread. Deterministic: a seed draws the same jobs
// and drives the random policy the same way on every run.
Evaluation run_experiment(const sim::ExperimentSpec& spec,
                          std::shared_ptr<const PhysicalEstimator> estimator);

// Groups runs by (policy, admission) in order of first appearance.
std::vector<GroupSummary> summarize_runs(const std::vector<Run>& runs);

// {"policy", "admission", "seeds", "<metric>_mean", "<metric>_ci95", ...}:
// deadline_met_rate, blocking_rate, unservable_rate, gpu_hours,
// gpu_hours_per_met, utilisation, queue_delay, mean_gpus, turned_away_rate,
// no_start_rate, late_rate.
nlohmann::json summary_to_json(const GroupSummary& g);

// The table people read: a row per (policy, admission), mean ± 95% CI.
std::string format_table(const std::vector<GroupSummary>& groups);
// The decision mix: a row per (job kind, admission, policy): jobs, the share
// never started, the share met, mean GPUs and the GPU counts it started with.
std::string format_decision_mix(const std::vector<DecisionMixRow>& mix);

// "default (<file>): 2000 jobs per seed from <params> at load 3 on <cluster> ..."
std::string describe_experiment(const sim::ExperimentSpec& spec, const std::string& cluster);

// runs.csv, summary.csv, summary.json and PNG plots (deadline_met_rate.png,
// gpu_hours_per_met.png, queue_delay.png) in `dir`; returns a line for people.
std::string write_outputs(const std::string& dir, const Evaluation& evaluation, bool plots);

}  // namespace pacml::gpu
