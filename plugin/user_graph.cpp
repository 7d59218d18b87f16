#include "plugin/user_graph.h"

#include <unistd.h>

#include <optional>

#include "core/util/error.h"
#include "plugin/compact_graph.h"
#include "plugin/regular_file.h"

namespace pacml::plugin {

std::string resolve_user_graph(const std::string& given, const std::string& cwd) {
  if (given.empty() || given[0] == '/') return given;
  if (given.find('/') == std::string::npos && ::access(given.c_str(), F_OK) != 0)
    return "";  // a bare name not here: the site's graph_dirs serve it
  return cwd.empty() ? given : cwd + "/" + given;
}

std::string compact_user_graph(const std::string& path, const GraphLimits& limits) {
  // The user's own process: links are the user's to follow.
  const std::optional<std::string> text = read_regular_file(path, limits.max_bytes, true);
  if (!text) throw InputError(path, "cannot read: No such file or directory");
  const LayerGraph g = parse_graph_text(*text, path, is_native_graph(*text, path), limits);
  std::string compact = encode_compact_graph(g);
  // Written again as numbers, a graph may grow a little; slurmctld holds the
  // form to the same byte limit.
  if (compact.size() > static_cast<size_t>(limits.max_bytes))
    throw InputError(path, "cannot use: its compact form has " + std::to_string(compact.size()) +
                               " bytes, more than the site's limit of " +
                               std::to_string(limits.max_bytes) + " (max_graph_bytes)");
  return compact;
}

}  // namespace pacml::plugin
