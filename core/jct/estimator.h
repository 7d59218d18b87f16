// The JCT estimator of the paper's world: partition a job for an action,
// place it on the cluster with RAMP first fit and time one training step.
// The reference profile times its dependencies and simulates the step with
// the paper's lookahead; the physical profile times it with the physical
// model's op strategy on the paper's cluster (doc/PHYSICAL.md §3), so the
// paper-style experiments see the same speed-ups as `pacml estimate`.
// This is the single entry point the paper-style simulator, the learner's
// environment and the Slurm plugin's reference profile use.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/cluster/cluster_state.h"
#include "core/graph/job_graph.h"
#include "core/jct/lookahead_cache.h"
#include "core/partition/partitioned_graph.h"
#include "core/placement/first_fit.h"
#include "core/profile.h"

namespace pacml {

// Why a job was not accepted.
enum class BlockCause { kNone, kDeclined, kNoPlacement, kDeadline };
const char* block_cause_name(BlockCause cause);

struct Estimate {
  int action = 0;
  bool placed = false;  // a placement was found
  BlockCause blocked = BlockCause::kDeclined;
  std::string failure;      // why not placed, for people
  std::vector<int> splits;  // k per layer
  int degree = 0;           // max k
  int partitioned_ops = 0, partitioned_deps = 0;
  Placement placement;
  // Times in the profile's unit (Profile::time_unit), for N training steps.
  double jct = 0;             // N × T_step
  double jct_max = 0;         // β × JCT_seq as the profile computes it
  double sequential_jct = 0;  // JCT_seq
  double speedup = 0;         // JCT_seq / JCT
  double comm_time = 0;       // N × time with a flow in flight
  double comp_time = 0;       // N × time with an op computing
  double overlap_time = 0;    // N × time with both
  long ticks = 0;             // lookahead ticks (0 on a cache hit)
  bool cache_hit = false;

  bool accepted() const { return blocked == BlockCause::kNone; }
  int servers_used() const { return static_cast<int>(placement.servers.size()); }
};

class JctEstimator {
 public:
  // steps: N, the training steps each job runs (50 in the paper).
  JctEstimator(RampTopology topology, Profile profile, int steps = 50);

  const RampTopology& topology() const { return topology_; }
  const Profile& profile() const { return profile_; }
  int steps() const { return steps_; }

  // Estimates `action` for `job` arriving with requirement fraction `beta`
  // on `cluster` (not modified). `cache` may be null. Throws InputError for
  // an invalid action or β outside (0, 1]. Thread-safe: const; the physical
  // profile keeps each graph's physical job behind a mutex.
  Estimate estimate(const JobGraph& job, int action, double beta, const ClusterState& cluster,
                    LookaheadCache* cache = nullptr) const;

  // JCT_seq of a job in the profile's time unit.
  double sequential_jct(const JobGraph& job) const;

 private:
  class PhysicalSteps;  // the physical profile's step times (estimator.cpp)

  StepTiming step_timing(const JobGraph& job, PartitionedGraph& graph, const Estimate& e,
                         LookaheadCache* cache, bool& cache_hit) const;

  RampTopology topology_;
  Profile profile_;
  int steps_;
  std::shared_ptr<PhysicalSteps> physical_;  // null for the reference profile
};

}  // namespace pacml
