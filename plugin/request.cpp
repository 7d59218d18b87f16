#include "plugin/request.h"

#include <map>

#include "core/slurm/slurm_syntax.h"
#include "core/util/error.h"
#include "plugin/compact_graph.h"

namespace pacml::plugin {
namespace {

JobRequest from_fields(const slurm::RequestFields& f, const std::string& origin) {
  JobRequest r;
  r.wants_pacml = true;
  r.origin = origin;
  r.graph = f.graph.value_or("");
  r.model = f.model.value_or("");
  r.steps = f.steps;
  r.deadline = f.deadline;
  r.beta = f.beta;
  return r;
}

}  // namespace

JobRequest extract_request(const std::vector<std::string>& spank_env, const std::string& comment) {
  const std::string prefix = kSpankOptionPrefix;
  slurm::RequestFields fields;
  bool spank = false;
  std::string resolved_graph, error;
  std::map<long, std::string> pieces;  // of the compact graph, by number
  for (const std::string& entry : spank_env) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq), value = entry.substr(eq + 1);
    if (name.rfind(prefix, 0) == 0) {
      const std::string key = name.substr(prefix.size());
      slurm::set_request_field(fields, key, value, "--pacml-" + key);
      spank = true;
    } else if (name == "PACML_GRAPH") {
      resolved_graph = value;
    } else if (const long piece = compact_graph_piece(name); piece >= 0) {
      pieces[piece] = value;
    } else if (name == kGraphErrorVar) {
      error = value;
    }
  }
  JobRequest r;
  if (spank) {
    if (!resolved_graph.empty() && fields.graph) fields.graph = resolved_graph;
    r = from_fields(fields, "spank");
    if (fields.graph) {
      // Pieces 0, 1, … up to the first missing one; the frame's size and
      // digest then tell a form that lost a piece.
      for (long i = 0; pieces.count(i); ++i) r.graph_compact += pieces[i];
      r.graph_error = std::move(error);
    }
  } else if (slurm::parse_comment(comment, fields, "--comment")) {
    r = from_fields(fields, "comment");
  }
  if (!r.graph.empty() && !r.model.empty())
    throw InputError("--pacml-graph", "give either a graph file or a model name, not both");
  return r;
}

}  // namespace pacml::plugin
