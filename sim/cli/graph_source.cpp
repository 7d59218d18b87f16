#include "sim/cli/graph_source.h"

#include "core/graph/graph_files.h"
#include "core/util/error.h"

namespace pacml::cli {

void add_graph_options(Args& args) {
  args.option("graph", "FILE", "job graph: a PipeDream graph.txt or a native YAML graph");
}

JobGraphPtr load_job_graph(const Args& args, const std::string& positional) {
  const bool from_file = args.has("graph") || !positional.empty();
  if (!from_file) throw InputError("pacml", "give a graph: --graph FILE");
  const std::string path = args.has("graph") ? args.get("graph") : positional;
  return make_job_graph(load_graph_file(path));
}

}  // namespace pacml::cli
