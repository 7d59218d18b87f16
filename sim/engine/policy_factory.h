// Makes a Policy from its name. The baselines of doc/MODEL.md §8 are built in
// (make_baseline_policy); other kinds register a maker for a name prefix, e.g.
// a test's stand-in. The learned policy ("pacml:PATH", "pacml:NAME") is built
// in too, so it works everywhere a policy name is accepted (simulate,
// evaluate, replay, YAML) in pacml and pacml-train alike.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/policy/policy.h"

namespace pacml::sim {

// Builds a policy for the full name (prefix included); throws InputError.
using PolicyMaker = std::function<PolicyPtr(const std::string& name, const std::string& where)>;

// Registers `maker` for names starting with `prefix` (thread-safe; a later
// registration for the same prefix replaces the earlier one).
void register_policy_maker(const std::string& prefix, PolicyMaker maker);

// Registered prefixes first (longest match), then the baselines. Throws
// InputError(where, ...) naming the known policies for anything else.
PolicyPtr make_policy(const std::string& name, const std::string& where = "--policy");

// Checks a name without keeping the policy (for validating configs early).
void check_policy_name(const std::string& name, const std::string& where);

// "para_max,fixed:4" → {"para_max", "fixed:4"}; blanks trimmed; empty entries rejected.
std::vector<std::string> split_policy_list(const std::string& text, const std::string& where);

}  // namespace pacml::sim
