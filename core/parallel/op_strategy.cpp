// The `op` strategy: the paper's op partitioning (SiP-ML style, doc/MODEL.md
// §3.1) with the physical model's accounting (doc/PHYSICAL.md §3).
//
// Each op is split into s sub-ops by the paper's rule (s grows with the op's
// compute, up to k; ops too small to be worth a launch stay whole). A sub-op
// takes 1/s of the op's samples, so rank i holds sub-op i of every op:
//  * consecutive ops split the same way exchange nothing (sub-op i feeds
//    sub-op i on the same GPU: the 1-to-1 case);
//  * an edge between ops split differently redistributes the producer's
//    activation among the max(s) GPUs: an all-gather (no reduction term),
//    forward for the activation and backward for its gradient, blocking;
//  * an op's weights are replicated on its s ranks, so their gradients are
//    all-reduced among them, bucketed and overlapping backward as in DDP.
// With every op split k ways this is data parallelism exactly; unsplit small
// ops add their full-batch time and the redistributions. Timing rank 0 (it
// holds a sub-op of every op) times the step.
#include <algorithm>
#include <cmath>
#include <map>

#include "core/parallel/memory_model.h"
#include "core/parallel/step_ops.h"
#include "core/parallel/strategies.h"
#include "core/partition/split_counts.h"

namespace pacml {
namespace {

int floor_power_of_two(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// Split count per layer: the paper's rule on the layer's forward + backward
// time at the full batch, with a quantum of one host launch, at most the
// batch, rounded down to a power of two (or k itself) so that splits nest
// and a job has few distinct sub-op batches to cost (≤ log2 k + 2).
// Layers with no work (inputs) follow the k-way split of the data loader.
std::vector<int> op_splits(const LayerGraph& full, int gpus, int batch, double quantum) {
  std::vector<int> splits(full.layers.size(), gpus);
  for (size_t l = 0; l < full.layers.size(); ++l) {
    const Layer& layer = full.layers[l];
    const double compute = (layer.forward_time + layer.backward_time) * 1e-3;
    if (compute <= 0) continue;
    const int split = std::min({split_count(compute, gpus, quantum), gpus, batch});
    splits[l] = split == gpus ? split : floor_power_of_two(split);
  }
  return splits;
}

// The graph each layer's sub-op runs at: costed at ceil(B/s) samples.
class ShardGraphs {
 public:
  ShardGraphs(const ParallelJob& job) : job_(job) {}
  const Layer& layer(int index, int split) {
    const int batch = (job_.global_batch() + split - 1) / split;
    auto it = graphs_.find(batch);
    if (it == graphs_.end()) it = graphs_.emplace(batch, job_.at_batch(batch)).first;
    return it->second->layers.at(index);
  }

 private:
  const ParallelJob& job_;
  std::map<int, std::shared_ptr<const LayerGraph>> graphs_;
};

struct OpStep {
  std::vector<TimelineOp> ops;
  std::vector<TimelineCollective> gradients;
  double activation_bytes = 0;
  double temporary = 0;  // the largest sub-op output (memory_model.h)
};

// Weight-gradient all-reduces in reverse layer order, one bucket per run of
// layers with the same split, closed at `bucket_bytes`.
std::vector<TimelineCollective> op_gradient_buckets(const LayerGraph& full,
                                                    const std::vector<int>& splits,
                                                    const std::vector<int>& ready_after,
                                                    const StrategyContext& context) {
  std::vector<TimelineCollective> buckets;
  double pending = 0;
  int group = 0;
  auto close = [&](int after) {
    if (pending > 0 && group > 1)
      buckets.push_back({after, context.collectives.all_reduce(
                                    pending, pack_gpus(group, context.cluster.gpus_per_server))});
    pending = 0;
  };
  for (int l = full.num_layers() - 1; l >= 0; --l) {
    if (splits[l] != group) close(ready_after[std::min(l + 1, full.num_layers() - 1)]);
    group = splits[l];
    pending += full.layers[l].parameter_bytes;
    if (pending >= context.constants.bucket_bytes || l == 0) close(ready_after[l]);
  }
  return buckets;
}

OpStep op_step(const ParallelJob& job, const LayerGraph& full, const std::vector<int>& splits,
               const StrategyContext& context) {
  ShardGraphs shards(job);
  const double host = context.constants.host_time_per_op(job.family());
  const int per_server = context.cluster.gpus_per_server;
  std::vector<std::vector<int>> inputs(full.layers.size());
  for (const LayerEdge& e : full.edges) inputs[e.dst].push_back(e.src);
  auto redistribute = [&](int src, int dst) {
    return context.collectives.all_gather(
        full.layers[src].activation_bytes,
        pack_gpus(std::max(splits[src], splits[dst]), per_server));
  };
  OpStep step;
  for (int l = 0; l < full.num_layers(); ++l) {
    for (int src : inputs[l])
      if (splits[src] != splits[l]) step.ops.push_back({0, redistribute(src, l), true});
    const Layer& shard = shards.layer(l, splits[l]);
    if (shard.forward_time > 0) step.ops.push_back({host, shard.forward_time * 1e-3});
    step.activation_bytes += shard.activation_bytes;
    step.temporary = std::max(step.temporary, shard.activation_bytes);
  }
  std::vector<int> ready(full.layers.size(), 0);
  for (int l = full.num_layers() - 1; l >= 0; --l) {
    const Layer& shard = shards.layer(l, splits[l]);
    if (shard.backward_time > 0) step.ops.push_back({host, shard.backward_time * 1e-3});
    ready[l] = std::max(0, static_cast<int>(step.ops.size()) - 1);
    for (int src : inputs[l])
      if (splits[src] != splits[l]) step.ops.push_back({0, redistribute(src, l), true});
  }
  step.gradients = op_gradient_buckets(full, splits, ready, context);
  return step;
}

}  // namespace

ParallelPlan plan_op(const ParallelJob& job, int gpus, const StrategyContext& context) {
  ParallelPlan plan = batch_split_plan(job, gpus, Strategy::kOp, context.cluster);
  if (!plan.ok()) return plan;
  // Sub-ops of one block run at different batches: which of them a
  // recomputation would keep is not modelled.
  if (job.checkpointing())
    return refuse(plan, PlanStatus::kNoPlacement,
                  "op partitioning is not modelled with activation checkpointing");
  const auto full = job.at_batch(job.global_batch());
  const double host = context.constants.host_time_per_op(job.family());
  const std::vector<int> splits = op_splits(*full, gpus, job.global_batch(), host);
  const OpStep step = op_step(job, *full, splits, context);
  const TimelineResult timeline =
      run_timeline(step.ops, step.gradients, context.constants.host_per_step,
                   context.constants.overlap_slowdown);
  take_timing(plan, timeline,
              optimizer_time(job, job.parameters(), weighted_layers(*full),
                             context.cluster.device.memory_bandwidth, host));
  MemoryTerms memory = parameter_memory(job, RankLayout{job.parameters()}, context);
  memory.activations = step.activation_bytes;
  memory.temporary = step.temporary;
  admit_memory(plan, memory, context);
  return plan;
}

}  // namespace pacml
