// The user's graph file, read by the SPANK plugin in the user's own process
// (sbatch, salloc or srun: the user's rights and CPU), validated with the
// parsers and limits slurmctld applies (plugin/graph_text.h) and turned into
// the compact form slurmctld receives instead of a path
// (plugin/compact_graph.h).
#pragma once

#include <string>

#include "plugin/graph_text.h"

namespace pacml::plugin {

// The path as given, made absolute in `cwd` (a relative one); a bare name
// ("model.txt") only if it exists there, else "" (a site graph name, served
// by slurmctld from graph_dirs).
std::string resolve_user_graph(const std::string& given, const std::string& cwd);

// Reads `path` (a regular file of at most max_bytes, opened non-blocking so
// that a FIFO cannot hang sbatch), parses and checks it, and returns its
// compact form; throws InputError(path[:line], reason) otherwise.
std::string compact_user_graph(const std::string& path, const GraphLimits& limits);

}  // namespace pacml::plugin
