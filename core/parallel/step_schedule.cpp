#include "core/parallel/step_schedule.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace pacml {
namespace {

// The module path up to and including its first component that ends in a
// digit ("h.3.attn.c_attn" -> "h.3"); "" for the root module's own layers.
std::string unit_path(const std::string& name) {
  size_t start = 0;
  while (start < name.size()) {
    const size_t dot = std::min(name.find('.', start), name.size());
    if (dot > start && std::isdigit(static_cast<unsigned char>(name[dot - 1])))
      return name.substr(0, dot);
    start = dot + 1;
  }
  return "";
}

}  // namespace

double whole_layer(const Layer&) {
  return 1.0;
}

LayerUnits layer_units(const LayerGraph& graph) {
  LayerUnits units;
  units.of_layer.resize(graph.layers.size());
  std::string current;
  for (int l = 0; l < graph.num_layers(); ++l) {
    const std::string path = unit_path(graph.layers[l].name);
    if (l == 0 || path != current) {
      units.first.push_back(l);
      units.block.push_back(!path.empty());
      current = path;
    }
    units.of_layer[l] = units.count() - 1;
  }
  units.first.push_back(graph.num_layers());
  return units;
}

StepOps step_ops(const LayerGraph& graph, const LayerUnits& units, double host_per_op,
                 const WorkShare& share, bool recompute, const StepHooks& hooks) {
  StepOps step;
  std::vector<TimelineOp>& ops = step.ops;
  ops.reserve(2 * graph.layers.size());
  step.gradient_ready.assign(graph.layers.size(), 0);
  step.unit_forward.assign(units.count(), -1);
  step.unit_backward.assign(units.count(), -1);
  auto forward = [&](const Layer& layer) {
    if (layer.forward_time > 0)
      ops.push_back({host_per_op, layer.forward_time * 1e-3 * share(layer)});
    if (hooks.after_forward) hooks.after_forward(layer, ops);
  };
  // Where a unit's first op of a pass sits, once it has issued one.
  auto first_op_since = [&](size_t before) {
    return ops.size() > before ? static_cast<int>(before) : -1;
  };
  for (int u = 0; u < units.count(); ++u) {
    const size_t before = ops.size();
    for (int l = units.first[u]; l < units.first[u + 1]; ++l) forward(graph.layers[l]);
    step.unit_forward[u] = first_op_since(before);
  }
  step.forward_end = static_cast<int>(ops.size()) - 1;
  for (int u = units.count() - 1; u >= 0; --u) {
    const size_t before = ops.size();
    // Checkpointing: the block's forward runs again, its activations live
    // only until its backward is done.
    if (recompute && units.block[u])
      for (int l = units.first[u]; l < units.first[u + 1]; ++l) forward(graph.layers[l]);
    for (int l = units.first[u + 1] - 1; l >= units.first[u]; --l) {
      const Layer& layer = graph.layers[l];
      if (layer.backward_time > 0)
        ops.push_back({host_per_op, layer.backward_time * 1e-3 * share(layer)});
      step.gradient_ready[l] = std::max(0, static_cast<int>(ops.size()) - 1);
      if (hooks.after_backward) hooks.after_backward(layer, ops);
    }
    step.unit_backward[u] = first_op_since(before);
  }
  return step;
}

std::vector<TimelineCollective> fsdp_collectives(StepOps& step, const LayerUnits& units,
                                                 const std::vector<double>& unit_bytes,
                                                 const std::function<double(double)>& all_gather,
                                                 const std::function<double(double)>& scatter) {
  std::vector<int> sharded;  // units with parameters, in forward order
  for (int u = 0; u < units.count(); ++u)
    if (unit_bytes[u] > 0 && step.unit_forward[u] >= 0) sharded.push_back(u);
  std::vector<TimelineCollective> collectives;
  auto gather_before = [&](int op, int ready_after, double bytes) {
    collectives.push_back({ready_after, all_gather(bytes)});
    if (op >= 0) step.ops[op].waits_for = static_cast<int>(collectives.size()) - 1;
  };
  // Forward: unit j's gather is issued when unit j-1 starts computing (the
  // first two at the step's start), so one unit computes while the next
  // arrives.
  for (size_t j = 0; j < sharded.size(); ++j) {
    const int ready = j < 2 ? -1 : step.unit_forward[sharded[j - 1]] - 1;
    gather_before(step.unit_forward[sharded[j]], ready, unit_bytes[sharded[j]]);
  }
  // Backward, last unit first: the gather of unit j is issued when unit j-1
  // (the one after it) starts its backward, before that unit's gradients are
  // reduce-scattered.
  for (size_t j = 0; j < sharded.size(); ++j) {
    const int u = sharded[sharded.size() - 1 - j];
    const int ready =
        j == 0 ? step.forward_end : step.unit_backward[sharded[sharded.size() - j]] - 1;
    gather_before(step.unit_backward[u], std::max(-1, ready), unit_bytes[u]);
    if (j > 0) {
      const int later = sharded[sharded.size() - j];
      collectives.push_back({step.gradient_ready[units.first[later]], scatter(unit_bytes[later])});
    }
  }
  if (!sharded.empty())
    collectives.push_back(
        {step.gradient_ready[units.first[sharded[0]]], scatter(unit_bytes[sharded[0]])});
  return collectives;
}

}  // namespace pacml
