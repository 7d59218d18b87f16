// Policies that choose how many GPUs a job gets on a GPU cluster
// (doc/PHYSICAL.md §2): one decision per job, when it starts, as Slurm
// decides a job once. The trace replay (sim/gpu) and the Slurm plugin both
// call choose_gpus, so a policy means the same thing in both.
//
//   requested     the GPU count the job asked for (what stock Slurm does)
//   min_feasible  the fewest GPUs that meet the deadline (ElasticFlow's
//                 minimum satisfactory share, without elastic rescaling)
//   para_max      the fastest GPU count that can start now
//   fixed:K       K GPUs
//   random        any GPU count that can start now and can run
#pragma once

#include <functional>
#include <string>

#include "core/policy/policy.h"

namespace pacml {

struct GpuPolicy {
  enum class Kind { kRequested, kMinFeasible, kParaMax, kFixed, kRandom } kind = Kind::kRequested;
  int fixed = 0;
  std::string name = "requested";
  // Throws InputError naming `where` for an unknown name.
  static GpuPolicy parse(const std::string& text, const std::string& where);
};

// What a GPU policy sees when it decides one job.
struct GpuDecisionInput {
  double now = 0;       // seconds, the clock `deadline` is on
  double deadline = 0;  // absolute; infinite when the job has none
  int requested = 1;    // GPUs the job asked for
  int free_gpus = 0;    // free GPUs on the whole cluster
  // Whether k GPUs can be placed now (on ⌈k/G⌉ servers).
  std::function<bool(int)> startable;
  // Seconds the job runs on k GPUs; infinite when it cannot run that way.
  std::function<double(int)> seconds;
};

// The GPU count the policy starts the job with now, or 0 to not start it now.
int choose_gpus(const GpuPolicy& policy, const GpuDecisionInput& input, Rng& rng);

}  // namespace pacml
