// Baseline policies (doc/MODEL.md §8) and the deadline-aware min_feasible oracle.
//
//   para_max      largest valid action
//   para_min      smallest valid a ≥ ceil(1/β); else the largest valid
//   random        uniform over valid non-zero actions
//   sequential    1 if valid
//   fixed:K       K if valid, else 0
//   min_feasible  tries valid actions in increasing order with the real
//                 estimator and takes the first that meets the deadline
//                 (ElasticFlow's "minimum satisfactory share"); 0 if none.
#pragma once

#include <string>
#include <vector>

#include "core/policy/policy.h"

namespace pacml {

// Builds a baseline by name; throws InputError(where, ...) listing the known
// names for anything else. ("pacml:PATH" — the learned policy — is built elsewhere.)
PolicyPtr make_baseline_policy(const std::string& name, const std::string& where = "--policy");

std::vector<std::string> baseline_policy_names();

}  // namespace pacml
