// `pacml estimate` in the physical profile (doc/PHYSICAL.md): one row per GPU
// count with the strategy, step time, JCT, speed-up, memory and status.
#pragma once

#include <nlohmann/json.hpp>

#include "core/parallel/parallel_plan.h"
#include "core/util/args.h"
#include "sim/cli/graph_source.h"
#include "sim/cli/parallel_source.h"
#include "sim/cli/world_option.h"

namespace pacml::cli {

// `pacml estimate`'s options, both worlds; CLI11 fills them (cmd_estimate.cpp
// and add_physical_estimate_options).
struct EstimateOptions {
  GraphOptions graph;
  WorldOptions world;
  ClusterChoice cluster;  // --cluster, --throughput-table, --topology
  JobOptions job;         // --activation-checkpointing, --optimizer, --profiled-batch
  std::optional<int> action;
  std::optional<double> beta;
  long steps = 50;
  bool json = false;
  // world gpu only
  std::optional<int> gpus;
  std::optional<Strategy> strategy;  // default auto
  std::optional<double> deadline;
};

// Declares the physical options (--gpus, --strategy, --deadline, cluster
// options) on `args`, bound to `options`.
void add_physical_estimate_options(Args& args, EstimateOptions& options);

// Runs the physical estimate `options` describe; returns the exit code.
int estimate_physical(const EstimateOptions& options);

// One plan as `pacml estimate --json` prints it. `jct_of` = steps × step time.
nlohmann::json plan_json(const ParallelPlan& plan, long steps, double single_gpu_step_time);

}  // namespace pacml::cli
