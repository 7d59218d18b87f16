// Experiments described in YAML (schema in sim/README.md), so a result is
// reproducible from one file:
//
//   pacml_experiment: 1
//   name: paper
//   profile: reference            # reference | physical
//   topology: 4x4x2               # or {groups, racks, servers_per_rack, node_bandwidth, ...}
//   steps: 50                     # N (synthetic jobs; trace fallback)
//   horizon: 1e6                  # profile time units, or "inf"
//   workload:
//     type: synthetic             # synthetic | trace
//     graphs: [alexnet.txt, resnet50]   # graph files or zoo names
//     interarrival: 1000
//     interarrival_distribution: fixed  # fixed | exponential
//   beta: [A, B, C, D]            # or uniform(lo,hi), fixed(v)
//   policies: [para_max, para_min, random, sequential, fixed:4]
//   seeds: 10                     # 0..9; or a list; or {first: 100, count: 10}
//
// A fitted-workload experiment replays jobs drawn from a fitted workload
// (sim/gpu/fitted_workload.h) on a GPU cluster with the physical model
// (sim/gpu/replay.h); it has no profile, topology, steps, horizon or β:
//
//   pacml_experiment: 1
//   cluster: ramp-a100-16x8       # a preset name or a cluster file
//   throughput_table: measured/   # optional: ElasticFlow's MODEL.csv directory
//   workload: {kind: fitted, params: elasticflow-01-05, load: 3, jobs: 2000}
//                                 # + deadline: slack (default) | beta, with beta: A..D, ...
//   admission: both               # immediate | queue | both
//   order: edf                    # queue order: edf | fifo
//   policies: [requested, min_feasible, para_max, fixed:8, random]
//   seeds: 5
//
// Every key is checked: a misspelt key is an InputError naming file:line.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cluster/ramp_topology.h"
#include "core/correction/step_correction.h"
#include "core/jct/estimator.h"
#include "core/world.h"
#include "sim/engine/beta_distribution.h"
#include "sim/engine/episode.h"
#include "sim/gpu/replay.h"
#include "sim/trace/trace_workload.h"
#include "sim/workload/graph_catalog.h"

namespace pacml::sim {

// What a fitted-workload experiment draws and where it replays the jobs.
struct FittedExperimentSpec {
  std::string params;  // workload file (resolved) or built-in name
  double load = 1;     // × the fitted arrival rate
  long jobs = 2000;    // jobs per seed
  // Deadlines: ElasticFlow's slack rule (the fit's) unless set, else the
  // paper's: submit + β × the sequential run time, β from this distribution.
  std::optional<BetaSpec> beta_deadline;
  std::string cluster = "ramp-a100-16x8";  // preset name or file (resolved)
  // Measured step times (core/parallel/throughput_table.h) that override the
  // analytic ones where they have the point: a directory (resolved); "" = none.
  std::string throughput_table;
  std::vector<gpu::Admission> admissions = {gpu::Admission::kImmediate, gpu::Admission::kQueue};
  gpu::QueueOrder order = gpu::QueueOrder::kEarliestDeadline;
  // A site correction (core/correction/correction_file.h): the corrected step
  // times are the simulated world's and what the policies are told.
  std::optional<StepCorrection> correction;
};

struct ExperimentSpec {
  std::string name = "experiment", description;
  std::string source = "<experiment>";  // file the spec came from
  std::string base_dir = ".";           // relative paths are resolved from here
  // `world:` (core/world.h), or the workload's when absent: paper for
  // `type: synthetic|trace`, gpu for `kind: fitted` (jobs on a GPU cluster,
  // sim/gpu) rather than the paper's RAMP episodes.
  World world = World::kPaper;
  std::string profile = "physical";  // the paper world's JCT model
  RampParams topology;
  int steps = 50;
  double horizon = 1e6;
  // workload
  std::string workload_type = "synthetic";  // synthetic | trace | fitted
  FittedExperimentSpec fitted;
  std::vector<std::string> graphs;
  bool exponential = false;
  double interarrival = 1000, first_arrival = 0;
  long max_jobs = -1;
  std::string trace_path;
  TraceFormat trace_format = TraceFormat::kElasticFlow;
  TraceMapping mapping;
  bool skip_bad = false;
  // grid
  std::vector<BetaSpec> betas;
  std::vector<std::string> policies;
  std::vector<std::uint64_t> seeds;
  int threads = 0;  // 0 = all cores
};

// Parses an experiment; `source` names it in messages, `base_dir` anchors paths.
// Each listed policy is built once to check its name (a learned policy's
// weights are loaded) unless check_policies is false: the trainer uses the
// workload only, and must run even when the experiment lists the very model
// it is about to produce.
ExperimentSpec parse_experiment(const std::string& yaml_text, const std::string& source,
                                const std::string& base_dir, bool check_policies = true);
ExperimentSpec load_experiment_file(const std::string& path, bool check_policies = true);

// Throws InputError naming the file for a fitted-workload experiment: the
// paper's simulator, trainer and trace replay cannot run it.
void require_paper_style(const ExperimentSpec& spec);

// Throws InputError(where, ...) when its episodes could never end: an
// infinite horizon over a synthetic workload without workload.max_jobs.
void check_episodes_end(const ExperimentSpec& spec, const std::string& where);

// The built-in default experiment (identical to contrib/experiments/default.yaml):
// a fitted workload on a 128-GPU cluster, what `pacml evaluate` runs with no file.
const std::string& default_experiment_yaml();
ExperimentSpec default_experiment();
// The built-in paper-style experiment on zoo graphs (identical to
// contrib/experiments/paper-zoo.yaml): the default before issue 15, what
// `pacml simulate` runs with no file and the shipped learned policy's.
const std::string& paper_zoo_experiment_yaml();
ExperimentSpec paper_zoo_experiment();

// "10" → seeds 0..9; "3,5,8" → those seeds; "100..109" → a range.
std::vector<std::uint64_t> parse_seed_list(const std::string& text, const std::string& where);

// One (policy, β distribution, seed) cell of the grid.
struct GridCell {
  size_t index = 0;  // position in the full grid (policy-major, then β, then seed)
  std::string policy;
  size_t beta = 0;  // index into ExperimentSpec::betas
  std::uint64_t seed = 0;
};

// An experiment ready to run: graphs and traces loaded, estimator built.
class Experiment {
 public:
  explicit Experiment(ExperimentSpec spec);

  const ExperimentSpec& spec() const { return spec_; }
  const std::shared_ptr<const JctEstimator>& estimator() const { return estimator_; }
  GraphCatalog& catalog() { return *catalog_; }
  WorkloadPtr workload(size_t beta) const { return workloads_.at(beta); }
  std::string beta_label(size_t beta) const { return workloads_.at(beta)->beta_label(); }
  // Trace experiments: what was read and how it was mapped.
  const TraceReport* trace_report() const { return trace_ ? &trace_report_ : nullptr; }
  const MappingReport* mapping_report() const;

  // The full grid, or the shard'th of `shards` slices (cells index % shards == shard).
  std::vector<GridCell> grid(int shard = 0, int shards = 1) const;
  // The environment of one β distribution's episodes (the policy label left empty).
  EnvironmentConfig environment_config(size_t beta, bool record_jobs, bool record_timeline) const;
  EpisodeTask task(const GridCell& cell, bool record_jobs, bool record_timeline) const;
  std::string describe() const;

 private:
  ExperimentSpec spec_;
  std::shared_ptr<const JctEstimator> estimator_;
  std::shared_ptr<GraphCatalog> catalog_;
  std::vector<WorkloadPtr> workloads_;
  std::shared_ptr<LookaheadCache> shared_cache_;
  bool trace_ = false;
  TraceReport trace_report_;
};

}  // namespace pacml::sim
