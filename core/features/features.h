// Observation encoding of the learned policy (doc/LEARNING.md §3).
//
// A job's node and edge features depend only on its unpartitioned
// training-step graph (and the profile's edge-size rule), so they are
// extracted once per graph (JobFeatures) and reused for every arrival of that
// graph. The 34 graph inputs mix per-graph statistics, the arrival's β, the
// cluster's occupancy and the action mask. Every feature lies in [0, 1].
//
// The simulator, the trainer and the Slurm plugin all call these functions,
// and the population normalisers travel inside the weights file, so a job is
// encoded identically everywhere.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/cluster/cluster_state.h"
#include "core/graph/job_graph.h"
#include "core/jct/estimator.h"
#include "core/profile.h"

namespace pacml::features {

// Bump when any feature's meaning, order or normalisation changes; weights
// files record it and are refused when it differs.
// 2: the action inputs are the feasible set. 3: plus, per action, the room
// the cluster would have left after it (ActionOutlook).
constexpr int kSchemaVersion = 3;
constexpr int kNodeFeatures = 5;
constexpr int kEdgeFeatures = 2;
constexpr int kGraphStats = 17;  // job and cluster statistics, first
constexpr int kNumActions = 17;  // actions 0..16
// Then per action: the largest placeable action after it, the free servers
// after it; the feasible set last (the network masks with the last entries).
constexpr int kRoomAfterOffset = kGraphStats;
constexpr int kFreeAfterOffset = kRoomAfterOffset + kNumActions;
constexpr int kFeasibleOffset = kFreeAfterOffset + kNumActions;
constexpr int kGraphInputs = kFeasibleOffset + kNumActions;  // 68

const std::vector<std::string>& node_feature_names();
const std::vector<std::string>& edge_feature_names();
const std::vector<std::string>& graph_feature_names();  // the kGraphInputs graph inputs
// {"version": 1, "node": [...], "edge": [...], "graph": [...]}
nlohmann::json schema_json();

// Cluster-independent features of one job graph.
struct JobFeatures {
  int num_nodes = 0;
  int num_edges = 0;
  std::vector<float> node;    // num_nodes × kNodeFeatures, row-major
  std::vector<int> src, dst;  // edge endpoints (step-graph op indices)
  std::vector<float> edge;    // num_edges × kEdgeFeatures, row-major
  // Raw per-graph quantities for the graph inputs.
  double total_op_memory = 0;  // bytes, Σ op memory over the step graph
  double total_edge_size = 0;  // bytes, Σ edge sizes (profile's rule)
  // Mean and median of the node compute feature, node memory feature and
  // edge size feature (feature values, so already in [0, 1]).
  double compute_mean = 0, compute_median = 0;
  double memory_mean = 0, memory_median = 0;
  double edge_mean = 0, edge_median = 0;
};

// Size of step-graph edge `dep` of the unpartitioned graph under `rule`
// (doc/MODEL.md §3.2 "neither split": reference m_src; physical the carried activation).
double unpartitioned_edge_size(const StepGraph& step, const StepDep& dep, EdgeSizeRule rule);

// Node features: compute/max, max-compute flag, memory/max, max-memory flag,
// depth/max depth. Every op equal to the maximum gets the flag (ties: a
// forward and a backward op share their layer's memory). A feature whose
// maximum is 0 is 0 for every node. Depth = nodes on the shortest directed
// path from the first source (lowest-index op without in-edges; depth 1),
// 0 if unreachable. Edge features: size/max, max-size flag.
JobFeatures extract_job_features(const JobGraph& job, EdgeSizeRule rule);

// Population min/max ranges for the min–max normalised graph features.
struct Range {
  double min = 0, max = 0;
  // (v − min)/(max − min) clamped to [0, 1]; 0 when max ≤ min.
  double normalise(double v) const;
  void include(double v);
};

struct Normalisers {
  Range ops, edges, jct_seq, jct_max, beta, op_memory, edge_size, steps;

  nlohmann::json to_json() const;
  // Throws InputError(where, ...) for missing or non-finite entries.
  static Normalisers from_json(const nlohmann::json& j, const std::string& where);
  bool operator==(const Normalisers& o) const;
};

// Ranges over a job population: its graphs under `estimator` (JCT_seq in the
// profile's time unit with the estimator's N), β in [beta_min, beta_max].
Normalisers compute_normalisers(const std::vector<JobGraphPtr>& graphs,
                                const JctEstimator& estimator, double beta_min = 0.10,
                                double beta_max = 1.00);

// Occupancy inputs: servers, occupied servers and running jobs (distinct owners).
struct ClusterLoad {
  int servers = 0, occupied = 0, running = 0;
};
ClusterLoad cluster_load(const ClusterState& cluster);

using GraphInputs = std::array<float, kGraphInputs>;

// What each action would do to the cluster now.
// * feasible: the actions of the mask that the estimator predicts will be
//   accepted (placed on the current cluster and JCT ≤ JCT_max), plus 0
//   (decline), always. Choosing any other action blocks the job for certain,
//   exactly as declining does, so the learned policy chooses among these only.
// * room_after: for a feasible action, the largest action (/16) that would
//   still have a free block once the job sits where RAMP first fit puts it;
//   for 0, the largest one now. Whether accepting a job wide leaves a block
//   for the next ones is what decides most departures from a fixed degree
//   (the same degree can take 8 or 9 servers depending on where it lands).
// * free_after: the free servers after it, / servers (for 0: now).
// Infeasible actions have 0 everywhere.
struct ActionOutlook {
  std::vector<bool> feasible = std::vector<bool>(kNumActions, false);
  std::array<float, kNumActions> room_after{};
  std::array<float, kNumActions> free_after{};
};
ActionOutlook action_outlook(const JobGraph& job, double beta, const ClusterState& cluster,
                             const std::vector<bool>& mask, const JctEstimator& estimator,
                             LookaheadCache* cache);
// action_outlook(...).feasible.
std::vector<bool> feasible_actions(const JobGraph& job, double beta, const ClusterState& cluster,
                                   const std::vector<bool>& mask, const JctEstimator& estimator,
                                   LookaheadCache* cache);

// The graph inputs in graph_feature_names() order (a feasible set shorter
// than kNumActions is padded with infeasible actions).
GraphInputs graph_inputs(const JobFeatures& job, const JobGraph& graph, const Normalisers& norm,
                         double sequential_jct, double beta, int steps, const ClusterLoad& load,
                         const ActionOutlook& outlook);

}  // namespace pacml::features
