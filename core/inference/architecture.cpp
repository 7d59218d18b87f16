#include "core/inference/architecture.h"

#include "core/inference/message_passing.h"

#include "core/util/error.h"

namespace pacml::inference {

nlohmann::json Architecture::to_json() const {
  return {{"kind", kind},
          {"node_in", node_in},
          {"edge_in", edge_in},
          {"graph_in", graph_in},
          {"actions", actions},
          {"module_width", module_width},
          {"layers", layers},
          {"graph_out", graph_out},
          {"graph_norm", graph_norm},
          {"head_hidden", head_hidden},
          {"layer_norm_eps", layer_norm_eps},
          {"mask_logit", mask_logit}};
}

Architecture Architecture::from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where, "architecture: expected an object");
  Architecture a;
  try {
    a.kind = j.at("kind").get<std::string>();
    if (a.kind != "pacml-gnn")
      throw InputError(where, "unknown architecture '" + a.kind + "' (this pacml knows pacml-gnn)");
    a.node_in = j.at("node_in").get<int>();
    a.edge_in = j.at("edge_in").get<int>();
    a.graph_in = j.at("graph_in").get<int>();
    a.actions = j.at("actions").get<int>();
    a.module_width = j.at("module_width").get<int>();
    a.layers = j.at("layers").get<std::vector<int>>();
    a.graph_out = j.at("graph_out").get<int>();
    a.head_hidden = j.at("head_hidden").get<int>();
    a.graph_norm = j.value("graph_norm", true);  // absent: the reference architecture
    a.layer_norm_eps = j.at("layer_norm_eps").get<double>();
    a.mask_logit = j.at("mask_logit").get<double>();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(where, std::string("architecture: ") + e.what());
  }
  auto positive = [&](int v, const char* what) {
    if (v <= 0 || v > 4096)
      throw InputError(where, std::string("architecture: bad ") + what + " " + std::to_string(v));
  };
  positive(a.node_in, "node_in");
  positive(a.edge_in, "edge_in");
  positive(a.graph_in, "graph_in");
  positive(a.actions, "actions");
  positive(a.module_width, "module_width");
  positive(a.graph_out, "graph_out");
  positive(a.head_hidden, "head_hidden");
  if (a.layers.empty() || a.layers.size() > 16)
    throw InputError(where, "architecture: needs 1..16 message-passing layers");
  for (int d : a.layers) positive(d, "layer width");
  if (!(a.layer_norm_eps > 0)) throw InputError(where, "architecture: layer_norm_eps must be > 0");
  return a;
}

std::vector<std::pair<std::string, std::vector<std::int64_t>>> Architecture::tensor_shapes() const {
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> t;
  auto ln = [&](const std::string& p, int d) { append_layer_norm_shape(t, p, d); };
  auto fc = [&](const std::string& p, int in, int out) { append_linear_shape(t, p, in, out); };
  MessagePassingShape{node_in, edge_in, module_width, layers, layer_norm_eps}.append_tensor_shapes(
      t);
  if (graph_norm) ln("graph_ln", graph_in);
  fc("graph_fc", graph_in, graph_out);
  fc("pi1", head_in(), head_hidden);
  fc("pi2", head_hidden, actions);
  fc("v1", head_in(), head_hidden);
  fc("v2", head_hidden, 1);
  return t;
}

}  // namespace pacml::inference
