#include "core/graph/native_graph.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "core/graph/graph_files.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/yaml_input.h"

namespace pacml {
namespace {

// An op's time or size: non-negative, and required unless it has a default (0).
double number(const YAML::Node& map, const char* key, const std::string& source, bool required) {
  const YAML::Node node = map[key];
  if (!node) {
    if (required)
      throw InputError(yaml_where(source, map), std::string("op is missing '") + key + "'");
    return 0;
  }
  return parse_non_negative(yaml_scalar(node, source, key), yaml_where(source, node), key);
}

Layer read_op(const YAML::Node& op, const std::string& source) {
  if (!op.IsMap()) throw InputError(yaml_where(source, op), "each op must be a mapping");
  yaml_check_keys(
      op, {"id", "label", "forward_ms", "backward_ms", "activation_bytes", "parameter_bytes"},
      source, "op");
  Layer layer;
  layer.name = yaml_scalar(op["id"], source, "op 'id'");
  if (op["label"]) layer.label = yaml_scalar(op["label"], source, "op 'label'");
  layer.forward_time = number(op, "forward_ms", source, true);
  layer.backward_time = number(op, "backward_ms", source, true);
  layer.activation_bytes = number(op, "activation_bytes", source, true);
  layer.parameter_bytes = number(op, "parameter_bytes", source, false);
  return layer;
}

LayerGraph from_yaml(const YAML::Node& root, const std::string& source) {
  if (!root.IsMap())
    throw InputError(source, "expected a mapping with 'pacml_graph', 'ops' and 'edges'");
  if (!root["pacml_graph"]) throw InputError(source, "missing 'pacml_graph: 1' (format version)");
  const long version = yaml_integer(root["pacml_graph"], source, "pacml_graph version", 1, 1000);
  if (version != kNativeGraphVersion)
    throw InputError(yaml_where(source, root["pacml_graph"]),
                     "unsupported graph format version " + std::to_string(version) +
                         " (this pacml reads " + std::to_string(kNativeGraphVersion) + ")");
  LayerGraph graph;
  graph.model_name =
      root["name"] ? yaml_scalar(root["name"], source, "name") : model_name_from_path(source);
  const YAML::Node ops = root["ops"];
  if (!ops || !ops.IsSequence() || ops.size() == 0)
    throw InputError(yaml_where(source, root), "'ops' must be a non-empty list");
  std::map<std::string, int> index;
  for (const YAML::Node& op : ops) {
    Layer layer = read_op(op, source);
    if (!index.emplace(layer.name, graph.num_layers()).second)
      throw InputError(yaml_where(source, op), "duplicate op id '" + layer.name + "'");
    graph.layers.push_back(std::move(layer));
  }
  const YAML::Node edges = root["edges"];
  if (edges && !edges.IsSequence())
    throw InputError(yaml_where(source, edges), "'edges' must be a list");
  std::set<std::pair<int, int>> seen;
  for (const YAML::Node& edge : edges ? edges : YAML::Node(YAML::NodeType::Sequence)) {
    if (!edge.IsSequence() || edge.size() != 2)
      throw InputError(yaml_where(source, edge), "an edge is a pair [from, to]");
    std::string from = yaml_scalar(edge[0], source, "edge end"),
                to = yaml_scalar(edge[1], source, "edge end");
    auto src = index.find(from), dst = index.find(to);
    if (src == index.end())
      throw InputError(yaml_where(source, edge), "edge from unknown op '" + from + "'");
    if (dst == index.end())
      throw InputError(yaml_where(source, edge), "edge to unknown op '" + to + "'");
    if (!seen.insert({src->second, dst->second}).second)
      throw InputError(yaml_where(source, edge), "duplicate edge " + from + " -> " + to);
    graph.edges.push_back({src->second, dst->second});
  }
  graph.output_layer = graph.num_layers() - 1;
  if (root["output"]) {
    std::string out = yaml_scalar(root["output"], source, "output");
    auto it = index.find(out);
    if (it == index.end())
      throw InputError(yaml_where(source, root["output"]), "output names unknown op '" + out + "'");
    graph.output_layer = it->second;
  }
  graph.validate(source);
  return graph;
}

}  // namespace

LayerGraph read_native_graph(std::istream& in, const std::string& source) {
  return convert_yaml(parse_yaml(in, source), source,
                      [&](const YAML::Node& root) { return from_yaml(root, source); });
}

LayerGraph read_native_graph_file(const std::string& path) {
  std::ifstream in = open_input_file(path);
  return read_native_graph(in, path);
}

void write_native_graph(const LayerGraph& graph, std::ostream& out) {
  YAML::Emitter yaml;
  yaml << YAML::BeginMap;
  yaml << YAML::Key << "pacml_graph" << YAML::Value << kNativeGraphVersion;
  yaml << YAML::Key << "name" << YAML::Value << graph.model_name;
  yaml << YAML::Key << "output" << YAML::Value << graph.layers.at(graph.output_layer).name;
  yaml << YAML::Key << "ops" << YAML::Value << YAML::BeginSeq;
  for (const Layer& layer : graph.layers) {
    yaml << YAML::Flow << YAML::BeginMap;
    yaml << YAML::Key << "id" << YAML::Value << layer.name;
    if (!layer.label.empty()) yaml << YAML::Key << "label" << YAML::Value << layer.label;
    yaml << YAML::Key << "forward_ms" << YAML::Value << exact_number_text(layer.forward_time);
    yaml << YAML::Key << "backward_ms" << YAML::Value << exact_number_text(layer.backward_time);
    yaml << YAML::Key << "activation_bytes" << YAML::Value
         << exact_number_text(layer.activation_bytes);
    yaml << YAML::Key << "parameter_bytes" << YAML::Value
         << exact_number_text(layer.parameter_bytes);
    yaml << YAML::EndMap;
  }
  yaml << YAML::EndSeq;
  yaml << YAML::Key << "edges" << YAML::Value << YAML::BeginSeq;
  for (const LayerEdge& e : graph.edges)
    yaml << YAML::Flow << YAML::BeginSeq << graph.layers[e.src].name << graph.layers[e.dst].name
         << YAML::EndSeq;
  yaml << YAML::EndSeq << YAML::EndMap;
  out << yaml.c_str() << "\n";
}

void write_pipedream_graph(const LayerGraph& graph, std::ostream& out) {
  // PipeDream puts the join at the largest id: number the output layer n and
  // the others 1..n-1 in node order.
  const int n = graph.num_layers();
  std::vector<int> id(n);
  int next = 1;
  for (int i = 0; i < n; ++i) id[i] = i == graph.output_layer ? n : next++;
  for (int i = 0; i < n; ++i) {
    const Layer& l = graph.layers[i];
    std::string label = l.label.empty() ? l.name : l.label;
    for (size_t p; (p = label.find(" -- ")) != std::string::npos;) label.replace(p, 4, " - ");
    out << "node" << id[i] << " -- " << label
        << " -- forward_compute_time=" << exact_number_text(l.forward_time)
        << ", backward_compute_time=" << exact_number_text(l.backward_time)
        << ", activation_size=" << exact_number_text(l.activation_bytes)
        << ", parameter_size=" << exact_number_text(l.parameter_bytes) << "\n";
  }
  for (const LayerEdge& e : graph.edges)
    out << "\tnode" << id[e.src] << " -- node" << id[e.dst] << "\n";
}

}  // namespace pacml
