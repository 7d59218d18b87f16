// The partitioned step graph (doc/MODEL.md §3.2): every op split k ways becomes k
// sub-ops; edges become all-to-all between neighbouring sub-ops; a split
// backward op's sub-ops get a gradient-synchronisation clique.
#pragma once

#include <vector>

#include "core/graph/step_graph.h"
#include "core/profile.h"

namespace pacml {

struct SubOp {
  int step_op = 0;     // StepGraph op it comes from
  int part = 0;        // 0..parts-1
  double compute = 0;  // profile time units
  double memory = 0;   // bytes
};

struct SubDep {
  int src = 0;  // SubOp indices
  int dst = 0;
  double size = 0;    // bytes
  int step_dep = -1;  // StepGraph dep it comes from; -1 for a sync edge
  bool sync() const { return step_dep < 0; }
};

class PartitionedGraph {
 public:
  // splits: k per layer (split_counts()). The StepGraph must outlive this.
  // Building the dependencies is most of the cost (resnet18 at a = 16 has
  // 41874); placement needs only the sub-ops, so callers that may answer from
  // a cache pass with_dependencies = false and call build_dependencies() on a miss.
  PartitionedGraph(const StepGraph& step, std::vector<int> splits, EdgeSizeRule rule,
                   bool with_dependencies = true);
  void build_dependencies();
  bool has_dependencies() const { return built_; }

  const StepGraph& step() const { return *step_; }
  const std::vector<int>& splits() const { return splits_; }
  int degree() const;
  int num_ops() const { return static_cast<int>(ops_.size()); }
  int num_deps() const { return static_cast<int>(deps_.size()); }
  const std::vector<SubOp>& ops() const { return ops_; }
  const std::vector<SubDep>& deps() const { return deps_; }
  const SubOp& op(int i) const { return ops_[i]; }
  const SubDep& dep(int i) const { return deps_[i]; }

  // Sub-ops of a step op are consecutive: first_sub_op(x) + part.
  int first_sub_op(int step_op) const { return first_sub_[step_op]; }
  int parts(int step_op) const { return splits_[step_->ops()[step_op].layer]; }

  // Dependencies by sub-op, in dependency order (CSR).
  struct Range {
    const int* b;
    const int* e;
    const int* begin() const { return b; }
    const int* end() const { return e; }
    int size() const { return static_cast<int>(e - b); }
  };
  Range in_deps(int sub_op) const {
    return {&in_list_[in_start_[sub_op]], &in_list_[in_start_[sub_op + 1]]};
  }
  Range out_deps(int sub_op) const {
    return {&out_list_[out_start_[sub_op]], &out_list_[out_start_[sub_op + 1]]};
  }

  // Σ sub-op compute in sub-op order (the reference recomputes JCT_max from it).
  double step_compute() const;
  double total_memory() const;
  double total_dep_size() const;

 private:
  double dep_size(const StepDep& d, EdgeSizeRule rule) const;
  void build_adjacency();

  const StepGraph* step_;
  std::vector<int> splits_;
  std::vector<int> first_sub_;
  std::vector<SubOp> ops_;
  std::vector<SubDep> deps_;
  std::vector<int> in_start_, in_list_, out_start_, out_list_;
  EdgeSizeRule rule_;
  bool built_ = false;
};

}  // namespace pacml
