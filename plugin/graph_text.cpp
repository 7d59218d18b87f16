#include "plugin/graph_text.h"

#include <cstring>
#include <sstream>

#include "core/graph/graph_files.h"
#include "core/graph/native_graph.h"
#include "core/graph/pipedream_reader.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/yaml_input.h"

namespace pacml::plugin {
namespace {

// The problems of a graph's shape (core/graph/layer_graph.cpp's checks),
// which name only layers, never values: told to the user as they are, so a
// cycle says which layers form it. "" for any other error.
std::string structural_problem(const InputError& e) {
  std::string text = e.what();
  if (!e.where().empty() && text.rfind(e.where() + ": ", 0) == 0)
    text = text.substr(e.where().size() + 2);
  for (const char* kind : {"graph has a cycle: ", "self loop on ", "duplicate edge ",
                           "edge from unknown node ", "edge to unknown node ",
                           "edge refers to a layer that does not exist", "output layer is not set"})
    if (text.rfind(kind, 0) == 0)
      return text + " (the graph must be acyclic: see the plugin README for the formats)";
  return "";
}

}  // namespace

bool is_native_graph(const std::string& text, const std::string& path) {
  for (const char* ext : {".yaml", ".yml"})
    if (path.size() >= std::strlen(ext) &&
        path.compare(path.size() - std::strlen(ext), std::strlen(ext), ext) == 0)
      return true;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const std::string_view t = trim(line);
    if (t.empty() || t.front() == '#') continue;
    return t.rfind("pacml_graph", 0) == 0;
  }
  return false;
}

void check_graph_limits(const LayerGraph& g, const std::string& path, const GraphLimits& limits) {
  // Parsing is bounded by max_graph_bytes; the decision's work grows with
  // the layers and edges, so they are bounded too.
  if (g.num_layers() > limits.max_ops)
    throw InputError(path, "cannot use: " + std::to_string(g.num_layers()) +
                               " layers, more than the site's limit of " +
                               std::to_string(limits.max_ops) + " (max_graph_ops)");
  if (g.num_edges() > limits.max_edges)
    throw InputError(path, "cannot use: " + std::to_string(g.num_edges()) +
                               " edges, more than the site's limit of " +
                               std::to_string(limits.max_edges) + " (max_graph_edges)");
}

LayerGraph parse_graph_text(const std::string& text, const std::string& path, bool native,
                            const GraphLimits& limits) {
  if (static_cast<long>(text.size()) > limits.max_bytes)
    throw InputError(path, "cannot read: larger than the site's limit of " +
                               std::to_string(limits.max_bytes) + " bytes (max_graph_bytes)");
  LayerGraph g;
  try {
    std::istringstream in(text);
    g = native ? read_native_graph(in, path) : read_pipedream(in, path);
    if (!native || g.model_name.empty()) g.model_name = model_name_from_path(path);
    g.validate(path);  // the errors JobGraph's constructor would raise, worded below
  } catch (const InputError& e) {
    const std::string& where = e.where().empty() ? path : e.where();
    if (const std::string shape = structural_problem(e); !shape.empty())
      throw InputError(where, shape);
    if (const std::string what = e.what(); what.find(kYamlTooDeep) != std::string::npos)
      throw InputError(where, std::string("not a valid native (YAML) graph file: ") + kYamlTooDeep +
                                  " " + std::to_string(kMaxYamlDepth) + " levels deep");
    throw InputError(where, std::string("not a valid ") +
                                (native ? "native (YAML) graph" : "PipeDream graph") +
                                " file (see the plugin README for the formats)");
  }
  check_graph_limits(g, path, limits);
  return g;
}

}  // namespace pacml::plugin
