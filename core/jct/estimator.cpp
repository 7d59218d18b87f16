#include "core/jct/estimator.h"

#include "core/comm/dependency_times.h"
#include "core/partition/partitioned_graph.h"
#include "core/partition/split_counts.h"
#include "core/util/error.h"

namespace pacml {

const char* block_cause_name(BlockCause cause) {
  switch (cause) {
    case BlockCause::kNone:
      return "accepted";
    case BlockCause::kDeclined:
      return "declined";
    case BlockCause::kNoPlacement:
      return "no_placement";
    case BlockCause::kDeadline:
      return "deadline";
  }
  return "unknown";
}

namespace {

// Σ p·q over step dependencies plus k(k−1) sync edges per split backward op,
// without materialising them.
int count_partitioned_deps(const PartitionedGraph& graph) {
  const StepGraph& step = graph.step();
  long count = 0;
  for (const StepDep& dep : step.deps())
    count += static_cast<long>(graph.parts(dep.src)) * graph.parts(dep.dst);
  for (int x = step.num_layers(); x < step.num_ops(); ++x)
    count += static_cast<long>(graph.parts(x)) * (graph.parts(x) - 1);
  return static_cast<int>(count);
}

}  // namespace

JctEstimator::JctEstimator(RampTopology topology, Profile profile, int steps)
    : topology_(std::move(topology)), profile_(std::move(profile)), steps_(steps) {
  if (steps < 1) throw InputError("steps", "training steps must be at least 1");
}

double JctEstimator::sequential_jct(const JobGraph& job) const {
  return job.step().step_compute() * steps_ * profile_.compute_scale;
}

Estimate JctEstimator::estimate(const JobGraph& job, int action, double beta,
                                const ClusterState& cluster, LookaheadCache* cache) const {
  check_action(action, kMaxAction, "action");
  if (!(beta > 0 && beta <= 1))
    throw InputError("beta", "β must be in (0, 1], got " + std::to_string(beta));
  Estimate e;
  e.action = action;
  e.sequential_jct = sequential_jct(job);
  e.jct_max = beta * e.sequential_jct;
  if (action == 0) {
    e.failure = "declined by the policy";
    return e;
  }
  e.splits = split_counts(job.layers(), action, profile_.quantum);
  // Dependencies are built only if the lookahead has to run (cache miss).
  PartitionedGraph graph(job.step(), e.splits, profile_.edge_sizes, /*with_dependencies=*/false);
  e.degree = graph.degree();
  e.partitioned_ops = graph.num_ops();
  e.partitioned_deps = count_partitioned_deps(graph);
  e.placement = place_first_fit(graph, cluster);
  if (!e.placement.placed) {
    e.blocked = BlockCause::kNoPlacement;
    e.failure = e.placement.failure;
    return e;
  }
  e.placed = true;
  std::string key;
  std::optional<StepTiming> timing;
  if (cache) {
    key = LookaheadCache::key(profile_.cache_key, job.fingerprint(), graph, e.placement, topology_);
    timing = cache->find(key);
    e.cache_hit = timing.has_value();
  }
  if (!timing) {
    graph.build_dependencies();
    timing = simulate_step(graph, e.placement, dependency_times(graph, e.placement, topology_),
                           profile_.compute_scale);
    if (cache) cache->insert(key, *timing);
  }
  e.jct = timing->step_time * steps_;
  e.comm_time = (timing->comm_only + timing->overlap) * steps_;
  e.comp_time = (timing->comp_only + timing->overlap) * steps_;
  e.overlap_time = timing->overlap * steps_;
  e.ticks = e.cache_hit ? 0 : timing->ticks;
  e.speedup = e.jct > 0 ? e.sequential_jct / e.jct : 0;
  bool late;
  if (profile_.deadline_from_partitioned_graph) {
    // Reference: JCT_max from the partitioned graph's compute, strict '>'.
    e.jct_max = beta * (graph.step_compute() * steps_ * profile_.compute_scale);
    late = e.jct > e.jct_max;
  } else {
    // Physical: a job that exactly meets its requirement is accepted even when
    // summing in another order moved the last bits.
    late = e.jct > e.jct_max * (1 + 1e-12);
  }
  e.blocked = late ? BlockCause::kDeadline : BlockCause::kNone;
  if (late) e.failure = "predicted JCT exceeds the requirement";
  return e;
}

}  // namespace pacml
