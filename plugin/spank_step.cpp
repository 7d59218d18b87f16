#include "plugin/spank_step.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/util/error.h"
#include "plugin/graph_text.h"

namespace pacml::plugin {

bool step_needs_plan_lookup(const std::function<bool(const char*)>& has_env) {
  if (has_env(kDecisionVar)) return false;  // the plan is there already
  return has_env(kJobMarker);
}

void parse_spank_args(int argc, char** argv, GraphLimits& limits) {
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i] ? argv[i] : "";
    const size_t eq = arg.find('=');
    const std::string key = arg.substr(0, eq);
    long* field = key == "max_graph_bytes"   ? &limits.max_bytes
                  : key == "max_graph_ops"   ? &limits.max_ops
                  : key == "max_graph_edges" ? &limits.max_edges
                                             : nullptr;
    if (!field || eq == std::string::npos)
      throw InputError("plugstack.conf", "unknown argument '" + arg +
                                             "' (max_graph_bytes=N, max_graph_ops=N or "
                                             "max_graph_edges=N)");
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(arg.c_str() + eq + 1, &end, 10);
    if (end == arg.c_str() + eq + 1 || *end || errno || n < 1 || n > (64L << 20))
      throw InputError("plugstack.conf",
                       key + " must be a positive integer, got '" + arg.substr(eq + 1) + "'");
    *field = n;
  }
}

}  // namespace pacml::plugin
