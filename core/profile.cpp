#include "core/profile.h"

#include "core/util/error.h"

namespace pacml {

Profile Profile::reference() {
  Profile p;
  p.name = "reference";
  return p;
}

Profile Profile::physical() {
  Profile p;
  p.name = "physical";
  p.compute_scale = 1e-3;
  p.edge_sizes = EdgeSizeRule::kPhysical;
  p.cache_scope = JctCacheScope::kShared;
  p.step_model = StepModel::kPhysicalOp;
  p.deadline_from_partitioned_graph = false;
  p.time_unit = "s";
  return p;
}

Profile Profile::by_name(const std::string& name, const std::string& where) {
  if (name == "reference") return reference();
  if (name == "physical") return physical();
  throw InputError(where, "unknown profile '" + name + "' (use 'reference' or 'physical')");
}

}  // namespace pacml
