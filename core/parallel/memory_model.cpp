#include "core/parallel/memory_model.h"

#include <algorithm>
#include <string>

namespace pacml {

ParameterBytes parameter_bytes(const ParallelJob& job) {
  ParameterBytes bytes;
  // torch.optim.AdamW: exp_avg and exp_avg_sq; SGD(momentum=...): momentum_buffer.
  bytes.optimizer_state = job.optimizer() == Optimizer::kSgd ? 4 : 8;
  if (job.precision() != Precision::kFp32) bytes.cast_weights = job.bytes_per_value();
  return bytes;
}

double saved_activations(const LayerGraph& graph, const LayerUnits& units, const WorkShare& share,
                         bool checkpointing, int first, int end) {
  double saved = 0;
  auto bytes = [&](int l) { return graph.layers[l].activation_bytes * share(graph.layers[l]); };
  if (!checkpointing) {
    for (int l = first; l < end; ++l) saved += bytes(l);
    return saved;
  }
  // A block's output is kept when a layer of another unit reads it (the next
  // block's input); the root module's outputs are not recomputed.
  std::vector<bool> kept(graph.layers.size(), false);
  for (const LayerEdge& e : graph.edges)
    if (units.of_layer[e.src] != units.of_layer[e.dst]) kept[e.src] = true;
  double largest_block = 0;
  for (int u = units.of_layer[first]; u < units.count() && units.first[u] < end; ++u) {
    const int lo = std::max(first, units.first[u]), hi = std::min(end, units.first[u + 1]);
    double block = 0;
    for (int l = lo; l < hi; ++l) {
      if (!units.block[u] || kept[l]) saved += bytes(l);
      if (units.block[u] && !kept[l]) block += bytes(l);
    }
    largest_block = std::max(largest_block, block);
  }
  return saved + largest_block;
}

double largest_temporary(const LayerGraph& graph, const WorkShare& share, int first, int end) {
  double largest = 0;
  for (int l = first; l < end; ++l)
    largest = std::max(largest, graph.layers[l].activation_bytes * share(graph.layers[l]));
  return largest;
}

MemoryTerms parameter_memory(const ParallelJob& job, const RankLayout& layout,
                             const StrategyContext& context) {
  const ParameterBytes per = parameter_bytes(job);
  MemoryTerms m;
  const double held = layout.parameters / layout.parameter_shards;
  m.weights = per.weights * held;
  m.gradients = per.gradients * held;
  m.optimizer_state = per.optimizer_state * layout.parameters / layout.state_shards;
  if (layout.largest_unit > 0) {
    // FSDP gathers and reduces in the job's precision (MixedPrecision's
    // param_dtype and reduce_dtype); autocast has nothing left to cache. Two
    // units are gathered at once (the prefetch), and one unit's gradient is
    // whole until it is reduce-scattered.
    m.gathered_units = 3 * layout.largest_unit * job.bytes_per_value();
  } else {
    m.cast_weights = per.cast_weights * layout.parameters;
  }
  m.unheld = context.constants.reserved_memory;
  return m;
}

MemoryTerms rank_memory(const ParallelJob& job, const LayerGraph& graph, const LayerUnits& units,
                        const WorkShare& share, const RankLayout& layout,
                        const StrategyContext& context) {
  MemoryTerms m = parameter_memory(job, layout, context);
  m.activations =
      saved_activations(graph, units, share, job.checkpointing(), 0, graph.num_layers());
  m.temporary = largest_temporary(graph, share, 0, graph.num_layers());
  return m;
}

void admit_memory(ParallelPlan& plan, const MemoryTerms& memory, const StrategyContext& context) {
  plan.memory = memory;
  plan.memory_per_gpu = memory.peak();
  if (memory.verdict() > context.cluster.gpu_memory && plan.ok()) {
    plan.status = PlanStatus::kOom;
    plan.why = "needs " + std::to_string(static_cast<long>(memory.verdict() / 1e9)) +
               " GB per GPU, the GPU has " +
               std::to_string(static_cast<long>(context.cluster.gpu_memory / 1e9)) + " GB";
  }
}

}  // namespace pacml
