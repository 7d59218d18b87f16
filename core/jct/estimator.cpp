#include "core/jct/estimator.h"

#include <cmath>
#include <mutex>

#include "core/cluster/cluster_spec.h"
#include "core/comm/dependency_times.h"
#include "core/parallel/physical_estimator.h"
#include "core/partition/split_counts.h"
#include "core/util/error.h"

namespace pacml {

// The physical profile's step times (doc/PHYSICAL.md §3, strategy `op`): a
// paper job is the physical model's job made of its graph (op times taken as
// measured at kDefaultProfiledBatch samples, the job's global batch), on the
// paper's cluster of the estimator's topology (one A100 per server). Jobs are
// kept by graph fingerprint: a paper-style experiment has a handful of graphs.
// Thread-safe.
class JctEstimator::PhysicalSteps {
 public:
  explicit PhysicalSteps(const RampTopology& topology) : estimator_(ClusterSpec::paper(topology)) {}

  // One step on `gpus` GPUs with the op strategy (its status says whether it fits).
  ParallelPlan plan(const JobGraph& graph, int gpus) const {
    return estimator_.plan(*job(graph), gpus, Strategy::kOp);
  }

  // Asked at every estimate (JCT_seq): one lock and one lookup once known.
  double single_gpu_step_time(const JobGraph& graph) const {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = single_.find(graph.fingerprint());
      if (it != single_.end()) return it->second;
    }
    const double step = estimator_.single_gpu_step_time(*job(graph));
    std::lock_guard<std::mutex> lock(mutex_);
    return single_.emplace(graph.fingerprint(), step).first->second;
  }

 private:
  ParallelJobPtr job(const JobGraph& graph) const {
    std::lock_guard<std::mutex> lock(mutex_);
    ParallelJobPtr& j = jobs_[graph.fingerprint()];
    if (!j) j = ParallelJob::from_graph(graph.layers(), kDefaultProfiledBatch, 0);
    return j;
  }

  PhysicalEstimator estimator_;
  mutable std::mutex mutex_;
  mutable std::map<std::uint64_t, ParallelJobPtr> jobs_;
  mutable std::map<std::uint64_t, double> single_;
};

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
  if (profile_.step_model == StepModel::kPhysicalOp)
    physical_ = std::make_shared<PhysicalSteps>(topology_);
}

double JctEstimator::sequential_jct(const JobGraph& job) const {
  if (physical_) return physical_->single_gpu_step_time(job) * steps_;
  return job.step().step_compute() * steps_ * profile_.compute_scale;
}

// One step of `graph` as placed in `e`: the physical model's op strategy on
// e.degree GPUs, or the paper's lookahead; from `cache` when it has it.
StepTiming JctEstimator::step_timing(const JobGraph& job, PartitionedGraph& graph,
                                     const Estimate& e, LookaheadCache* cache,
                                     bool& cache_hit) const {
  std::string key;
  if (cache) {
    key = LookaheadCache::key(job.fingerprint(), e.degree);
    if (std::optional<StepTiming> hit = cache->find(key)) return cache_hit = true, *hit;
  }
  StepTiming timing;
  if (physical_) {
    const ParallelPlan plan = physical_->plan(job, e.degree);
    timing.step_time = plan.ok() ? plan.step_time : INFINITY;  // does not fit: never in time
    timing.overlap = plan.overlap;
    timing.comm_only = plan.comm - plan.overlap;
    timing.comp_only = plan.comp - plan.overlap;
  } else {
    graph.build_dependencies();
    timing = simulate_step(graph, e.placement, dependency_times(graph, e.placement, topology_),
                           profile_.compute_scale);
  }
  if (cache) cache->insert(key, timing);
  return timing;
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
  const StepTiming timing = step_timing(job, graph, e, cache, e.cache_hit);
  if (!std::isfinite(timing.step_time)) {
    e.placed = false;
    e.blocked = BlockCause::kNoPlacement;
    e.failure =
        "the op strategy does not fit in GPU memory on " + std::to_string(e.degree) + " GPUs";
    return e;
  }
  e.jct = timing.step_time * steps_;
  e.comm_time = (timing.comm_only + timing.overlap) * steps_;
  e.comp_time = (timing.comp_only + timing.overlap) * steps_;
  e.overlap_time = timing.overlap * steps_;
  e.ticks = e.cache_hit ? 0 : timing.ticks;
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
