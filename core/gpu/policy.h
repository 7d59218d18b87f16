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
//   capped:X      min_feasible, but a job whose run on those GPUs costs more
//                 than X cluster-hours (GPU-hours / cluster GPUs) is not
//                 started: the learned policy's teacher (doc/LEARNING.md §7),
//                 a reference rather than what real systems do
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/parallel/parallel_plan.h"
#include "core/policy/policy.h"

namespace pacml {
class ParallelJob;
}  // namespace pacml

namespace pacml::gpu {

struct DecisionInput;

struct Policy {
  enum class Kind {
    kRequested,
    kMinFeasible,
    kParaMax,
    kFixed,
    kRandom,
    kCapped,
    kChooser
  } kind = Kind::kRequested;
  int fixed = 0;
  double cap = 0;  // kCapped: cluster-hours
  std::string name = "requested";
  // kChooser: a policy that is not a rule above (the learned policy,
  // core/gpu/learned_policy.h); it returns what choose_gpus returns.
  std::function<int(const DecisionInput&, Rng&)> chooser;
  // Throws InputError naming `where` for an unknown name. "pacml:NAME" is the
  // learned GPU policy (core/gpu/learned_policy.h), NAME looked up
  // in $PACML_MODELS_DIR, then in `model_dirs`.
  static Policy parse(const std::string& text, const std::string& where,
                      const std::vector<std::string>& model_dirs = {});
  // A kChooser policy named `name` that decides with `fn`.
  static Policy of_chooser(std::string name, std::function<int(const DecisionInput&, Rng&)> fn);
};

// What a GPU policy sees when it decides one job.
struct DecisionInput {
  double now = 0;       // seconds, the clock `deadline` is on
  double deadline = 0;  // absolute; infinite when the job has none
  int requested = 1;    // GPUs the job asked for
  int free_gpus = 0;    // free GPUs on the whole cluster
  // Whether k GPUs can be placed now (on ⌈k/G⌉ servers).
  std::function<bool(int)> startable;
  // Seconds the job runs on k GPUs; infinite when it cannot run that way.
  std::function<double(int)> seconds;
  // Optional: what the physical model's plan for k GPUs says besides its
  // time, the memory of its fullest GPU and its strategy (DurationModel::
  // traits); unset, a learned policy reads "nothing known".
  std::function<PlanTraits(int)> traits;

  // What else a learned policy reads (core/gpu/features.h); the
  // rules above ignore it. Left unset, a field reads as "nothing known".
  const ParallelJob* job = nullptr;  // the model at its global batch (its graph)
  int cluster_gpus = 0;              // 0: free_gpus
  int gpus_per_server = 0;           // 0: cluster_gpus
  int free_servers = 0;              // servers with every GPU free
  int queued_jobs = 0;               // other jobs waiting to start
  double queued_gpus = 0;            // GPUs those jobs asked for, summed
  // GPU-seconds submitted over the last day (each job at its requested
  // count), per GPU-second of the cluster: the offered load.
  double recent_load = 0;
  bool queue_admission = false;  // a job not started now waits (else it is turned away)
};

// What choose_gpus returns for a job the policy will not run at all, though
// it could start now: it leaves the queue (missed) instead of waiting, and the
// Slurm plugin rejects it rather than queue it. Only capped:X and the learned
// policy turn jobs away; 0 means "not now" (it cannot start now).
constexpr int kTurnAway = -1;

// The GPU count the policy starts the job with now, 0 to not start it now,
// or kTurnAway.
int choose_gpus(const Policy& policy, const DecisionInput& input, Rng& rng);

// capped:X's rule: the fewest GPUs that meet the deadline now if their run
// costs at most `cap` cluster-hours (k × run / (cluster GPUs × 3600 s)),
// kTurnAway if it costs more (waiting only makes it dearer: less time left
// needs more GPUs, each less efficient), 0 if no count can start now.
int capped_min_feasible(const DecisionInput& input, double cap);

}  // namespace pacml::gpu
