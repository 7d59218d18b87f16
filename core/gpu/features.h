// What the learned GPU policy sees of one decision (doc/LEARNING.md §7): the
// job's graph (node/edge features, embedded by message passing and cached per
// model), scalars about the job and the cluster, and one row per candidate
// action. Every scalar lies in [0, 1] (clipped), so weights trained on one
// cluster size read another's inputs on the same scale.
//
// Candidate actions: action 0 is "do not start it now" (turned away under
// immediate admission, left waiting in a queue); then up to kMaxStartActions
// GPU counts that can start now and end by the deadline: the fewest such
// count (what min_feasible takes), the next power of two and the next whole
// server count above it, twice it, and the fastest startable power of two or
// whole-server count.
// Duplicates are dropped, so a decision has 1..kMaxStartActions+1 actions.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/features/features.h"
#include "core/gpu/policy.h"

namespace pacml::gpu {

// Bump when any GPU feature's meaning, order or scale changes; weights files
// record it and are refused when it differs.
// 2: the fastest candidate among powers of two and whole servers.
// 3: each candidate's memory and strategy (the physical model's plan).
constexpr int kSchemaVersion = 3;
constexpr int kJobScalars = 9;
constexpr int kContextScalars = 7;
constexpr int kActionScalars = 14;
constexpr int kMaxStartActions = 5;

const std::vector<std::string>& job_scalar_names();
const std::vector<std::string>& context_scalar_names();
const std::vector<std::string>& action_scalar_names();
// {"version": kSchemaVersion, "job": [...], "context": [...], "action": [...]}
nlohmann::json schema_json();

// One decision's inputs, apart from the graph.
struct DecisionFeatures {
  std::vector<int> gpus;       // GPU count of each action; gpus[0] = 0 (do not start now)
  std::vector<float> job;      // kJobScalars
  std::vector<float> context;  // kContextScalars
  std::vector<float> actions;  // gpus.size() × kActionScalars, row-major
  int fewest = 0;              // the fewest GPUs that meet the deadline now (0: none)
};

// What choose_gpus returns for `action`: its GPU count; for action 0,
// kTurnAway when some count could start (the policy declined the job), else
// 0 (nothing can start now: it waits, in a queue).
int gpus_for_action(const DecisionFeatures& decision, int action);

// The graph features of a job's model at its global batch (physical edge
// sizes), what the network embeds: one function for the policy and the trainer.
features::JobFeatures job_features(const ParallelJob& job);

// The candidate actions and their features. `input` must have `seconds`
// and `startable`; the context fields of DecisionInput fill the context
// scalars (zeros where the caller leaves them unset).
DecisionFeatures decision_features(const DecisionInput& input);
// The same into `out`, reusing its vectors' memory (a caller deciding job
// after job allocates nothing once warm).
void decision_features(const DecisionInput& input, DecisionFeatures& out);

}  // namespace pacml::gpu
