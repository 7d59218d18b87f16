// The configuration in force and what the engine builds from it once per
// load of pacml.conf (Engine::refresh_config), so that a decision only reads
// it: the paper's RAMP world (topology, profile, policy, lookahead cache) or
// the GPU world (cluster, GPU policy, jobs and their durations). Decisions
// use it under the engine's lock.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "core/cluster/cluster_spec.h"
#include "core/cluster/ramp_topology.h"
#include "core/gpu/policy.h"
#include "core/jct/lookahead_cache.h"
#include "core/parallel/duration_model.h"
#include "core/parallel/parallel_job.h"
#include "core/policy/policy.h"
#include "core/profile.h"
#include "core/util/lru_cache.h"
#include "plugin/config.h"

namespace pacml::plugin {

struct ActiveConfig {
  // Builds the world `c` decides in; throws what a bad file throws (the
  // engine then keeps the last good configuration).
  explicit ActiveConfig(PluginConfig c);

  // The durations of jobs on `nodes` nodes of `gpus_per_node` GPUs, as Slurm
  // shows the partition (which may differ from the description); built on
  // first use.
  DurationModel& durations_for(int nodes, int gpus_per_node);

  PluginConfig cfg;
  // Both worlds: a RAMP topology's size maps the servers when no cluster
  // file is given.
  RampTopology topology;
  Profile profile;
  PolicyPtr policy;  // the paper simulator's (profile reference); null in the GPU world
  // Bounded: every distinct user graph adds entries (keys of up to ~34 KB).
  static constexpr std::size_t kLookaheadCacheBytes = 64u << 20;
  LookaheadCache cache;
  Rng rng;
  // The GPU world's (cfg.world == World::kGpu): the cluster, the policy,
  // the zoo jobs and their durations by (nodes, GPUs per node) as Slurm
  // shows the partition, which may differ from the description's; measured
  // step times (cfg.throughput) override the analytic ones where they exist.
  std::optional<ClusterSpec> cluster;
  std::optional<gpu::Policy> gpu_policy;
  std::map<std::string, std::shared_ptr<const ParallelJob>> jobs;
  // Users' graph files as jobs, by the graph's serial fingerprint (one per
  // distinct text, GraphSource): bounded in bytes, since every user's file
  // adds one. A job holds its profile and the graph at each per-GPU batch it
  // was costed at (at most ~16 for the profiled batch of 64).
  static constexpr std::size_t kGraphJobCacheBytes = 64u << 20;
  static constexpr std::size_t kLayerBytes = 512;  // a layer, its label and edges
  static constexpr std::size_t kBatchesKept = 17;  // the profile and ~16 batches
  LruCache<std::shared_ptr<const ParallelJob>> graph_jobs;
  std::map<std::pair<int, int>, std::unique_ptr<DurationModel>> durations;
};

}  // namespace pacml::plugin
