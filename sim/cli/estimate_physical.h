// `pacml estimate` in the physical profile (doc/PHYSICAL.md): one row per GPU
// count with the strategy, step time, JCT, speed-up, memory and status.
#pragma once

#include <nlohmann/json.hpp>

#include "core/parallel/parallel_plan.h"
#include "core/util/args.h"

namespace pacml::cli {

// Declares the physical options (--gpus, --strategy, --deadline, cluster
// options) on `args`.
void add_physical_estimate_options(Args& args);

// Runs the physical estimate the parsed `args` describe; returns the exit code.
int estimate_physical(const Args& args);

// One plan as `pacml estimate --json` prints it. `jct_of` = steps × step time.
nlohmann::json plan_json(const ParallelPlan& plan, long steps, double single_gpu_step_time);

}  // namespace pacml::cli
