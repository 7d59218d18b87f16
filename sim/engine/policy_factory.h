// The simulator's names for the one policy factory (core/policy/policy_factory.h),
// and the policy lists of the command line and experiment files.
#pragma once

#include <string>
#include <vector>

#include "core/policy/policy_factory.h"

namespace pacml::sim {

using pacml::PolicyMaker;
using pacml::register_policy_maker;

// The one factory, with the shipped models beside the running program
// (sim/workload/paths.h model_search_dirs) on the search path of "pacml:NAME".
PolicyPtr make_policy(const std::string& name, const std::string& where = "--policy");
void check_policy_name(const std::string& name, const std::string& where);

// "para_max,fixed:4" → {"para_max", "fixed:4"}; blanks trimmed; empty entries rejected.
std::vector<std::string> split_policy_list(const std::string& text, const std::string& where);

}  // namespace pacml::sim
