// Policies the plugin can run: the baselines (core/policy/baselines.h) and
// the learned policy "pacml:WEIGHTS" (core/inference, Eigen, no LibTorch).
// Other kinds can register a maker for a name prefix (checked first).
#pragma once

#include <functional>
#include <string>

#include "core/policy/policy.h"

namespace pacml::plugin {

// Builds the policy for the full name (prefix included); throws InputError.
using PolicyMaker = std::function<PolicyPtr(const std::string& name, const std::string& where)>;

// Registers `maker` for names starting with `prefix` (replaces an earlier one).
void register_plugin_policy(const std::string& prefix, PolicyMaker maker);

// Builds a policy: a registered prefix (longest match), the learned policy
// for "pacml:PATH" (the weights file must load), or a baseline. Throws
// InputError(where, ...) with a message an admin can act on.
PolicyPtr make_plugin_policy(const std::string& name, const std::string& where);

// The same check without keeping the policy.
void check_plugin_policy(const std::string& name, const std::string& where);

}  // namespace pacml::plugin
