// Slurm hostlist expressions ("n[1-32]", "gpu[01-04,07],login1") without
// libslurm, so the plugin library stays testable on its own.
#pragma once

#include <string>
#include <vector>

namespace pacml::plugin {

// Expands a hostlist into node names in the order written. Accepts comma-
// separated items, each an optional prefix, one bracketed range list
// ("[1-4,7]", zero padding kept: "[01-04]") and an optional suffix.
// Throws InputError(where, ...) on unbalanced brackets, empty names or
// descending ranges.
std::vector<std::string> expand_hostlist(const std::string& text, const std::string& where);

// Joins names with commas (Slurm accepts this wherever a hostlist goes).
std::string join_hostlist(const std::vector<std::string>& names);

}  // namespace pacml::plugin
