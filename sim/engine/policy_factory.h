// The simulator's names for the one policy factory (core/policy/policy_factory.h),
// and the policy lists of the command line and experiment files.
#pragma once

#include <string>
#include <vector>

#include "core/policy/policy_factory.h"

namespace pacml::sim {

using pacml::check_policy_name;
using pacml::make_policy;
using pacml::PolicyMaker;
using pacml::register_policy_maker;

// "para_max,fixed:4" → {"para_max", "fixed:4"}; blanks trimmed; empty entries rejected.
std::vector<std::string> split_policy_list(const std::string& text, const std::string& where);

}  // namespace pacml::sim
