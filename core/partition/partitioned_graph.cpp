#include "core/partition/partitioned_graph.h"

#include <algorithm>

namespace pacml {

PartitionedGraph::PartitionedGraph(const StepGraph& step, std::vector<int> splits,
                                   EdgeSizeRule rule, bool with_dependencies)
    : step_(&step), splits_(std::move(splits)), rule_(rule) {
  const auto& step_ops = step.ops();
  first_sub_.resize(step_ops.size());
  for (int x = 0; x < step.num_ops(); ++x) {
    first_sub_[x] = num_ops();
    const int k = parts(x);
    for (int part = 0; part < k; ++part)
      ops_.push_back({x, part, step_ops[x].compute / k, step_ops[x].memory / k});
  }
  if (with_dependencies) build_dependencies();
}

void PartitionedGraph::build_dependencies() {
  if (built_) return;
  const StepGraph& step = *step_;
  size_t count = 0;
  for (const StepDep& dep : step.deps())
    count += static_cast<size_t>(parts(dep.src)) * parts(dep.dst);
  for (int x = step.num_layers(); x < step.num_ops(); ++x)
    count += static_cast<size_t>(parts(x)) * (parts(x) - 1);
  deps_.reserve(count);
  for (int d = 0; d < step.num_deps(); ++d) {
    const StepDep& dep = step.deps()[d];
    const double size = dep_size(dep, rule_);
    const int p = parts(dep.src), q = parts(dep.dst);
    for (int i = 0; i < p; ++i)
      for (int j = 0; j < q; ++j)
        deps_.push_back({first_sub_[dep.src] + i, first_sub_[dep.dst] + j, size, d});
  }
  // Gradient synchronisation: a full directed clique among a split backward op's sub-ops.
  for (int x = step.num_layers(); x < step.num_ops(); ++x) {
    const int k = parts(x);
    if (k < 2) continue;
    const StepOp& op = step.ops()[x];
    const double whole = rule_ == EdgeSizeRule::kReference
                             ? op.memory
                             : step.layers().layers[op.layer].parameter_bytes;
    for (int l = 0; l < k; ++l)
      for (int m = 0; m < k; ++m)
        if (l != m) deps_.push_back({first_sub_[x] + l, first_sub_[x] + m, whole / k, -1});
  }
  build_adjacency();
  built_ = true;
}

// Size of every sub-edge X_i -> Y_j of a step dependency (doc/MODEL.md §3.2 table).
double PartitionedGraph::dep_size(const StepDep& d, EdgeSizeRule rule) const {
  const StepOp& x = step_->ops()[d.src];
  const StepOp& y = step_->ops()[d.dst];
  const double p = parts(d.src), q = parts(d.dst);
  if (rule == EdgeSizeRule::kPhysical) {
    const double size = step_->layers().layers[d.carried_layer].activation_bytes;
    return p > 1 ? size / p : size;  // each consumer needs the producer's whole shard
  }
  if (p == 1 && q == 1) return x.memory;
  if (q == 1) return y.memory / p;
  if (p == 1) return x.memory / q;
  // Both split: the op whose forward op comes first in file order sets the
  // size; on the join edge the forward op precedes its own mirror.
  const bool x_first = x.layer < y.layer || (x.layer == y.layer && !x.backward && y.backward);
  return (x_first ? x.memory : y.memory) / (p * q);
}

void PartitionedGraph::build_adjacency() {
  const int n = num_ops();
  in_start_.assign(n + 1, 0);
  out_start_.assign(n + 1, 0);
  for (const SubDep& d : deps_) ++in_start_[d.dst + 1], ++out_start_[d.src + 1];
  for (int i = 0; i < n; ++i) in_start_[i + 1] += in_start_[i], out_start_[i + 1] += out_start_[i];
  in_list_.resize(deps_.size());
  out_list_.resize(deps_.size());
  std::vector<int> in_fill(in_start_.begin(), in_start_.end() - 1),
      out_fill(out_start_.begin(), out_start_.end() - 1);
  for (int d = 0; d < num_deps(); ++d) {
    in_list_[in_fill[deps_[d].dst]++] = d;
    out_list_[out_fill[deps_[d].src]++] = d;
  }
  // Guard the &vec[index] in in_deps()/out_deps() for graphs with no deps.
  in_list_.push_back(-1);
  out_list_.push_back(-1);
}

int PartitionedGraph::degree() const {
  return *std::max_element(splits_.begin(), splits_.end());
}

double PartitionedGraph::step_compute() const {
  double total = 0;
  for (const SubOp& op : ops_) total += op.compute;
  return total;
}

double PartitionedGraph::total_memory() const {
  double total = 0;
  for (const SubOp& op : ops_) total += op.memory;
  return total;
}

double PartitionedGraph::total_dep_size() const {
  double total = 0;
  for (const SubDep& d : deps_) total += d.size;
  return total;
}

}  // namespace pacml
