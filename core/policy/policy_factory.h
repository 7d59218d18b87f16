// Makes a Policy from its name, for every caller (simulator, trainer, Slurm
// plugin): the baselines of doc/MODEL.md §8 (make_baseline_policy), the learned
// policy "pacml:PATH" / "pacml:NAME" (core/inference, Eigen, no LibTorch),
// and kinds that register a maker for a name prefix (e.g. the LibTorch
// trainer's "pacml:" while it trains), which are tried first.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/policy/policy.h"

namespace pacml {

// Builds the policy for the full name (prefix included); throws InputError.
using PolicyMaker = std::function<PolicyPtr(const std::string& name, const std::string& where)>;

// Registers `maker` for names starting with `prefix` (thread-safe; a later
// registration for the same prefix replaces the earlier one).
void register_policy_maker(const std::string& prefix, PolicyMaker maker);

// Registered prefixes first (longest match), then the learned policy for
// "pacml:…" (the weights file must load; "pacml:NAME" is looked up in
// $PACML_MODELS_DIR, then in `model_dirs`), then the baselines. Throws
// InputError(where, ...) with a message an admin or user can act on.
PolicyPtr make_policy(const std::string& name, const std::string& where = "--policy",
                      const std::vector<std::string>& model_dirs = {});

// Checks a name without keeping the policy (for validating configs early).
void check_policy_name(const std::string& name, const std::string& where,
                       const std::vector<std::string>& model_dirs = {});

}  // namespace pacml
