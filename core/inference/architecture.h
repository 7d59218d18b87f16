// The learned policy's network shape (doc/LEARNING.md §4) and the names
// and shapes of its tensors, shared by the Eigen forward pass (core) and the
// LibTorch trainer (model/), so both read and write the same weights file.
//
// Message-passing layer l (d_in → d_out):
//   node module   LayerNorm(d_in) → Linear(d_in, W) → ReLU        mp.l.node_ln / mp.l.node_fc
//   edge module   LayerNorm(2) → Linear(2, W) → ReLU              mp.l.edge_ln / mp.l.edge_fc
//   message u→v   [node(h_u) ‖ edge(e_uv)]; every node also sends itself [node(h_v) ‖ 0]
//   reduce        LayerNorm(2W) → Linear(2W, d_out) → ReLU on each message, mean per receiver
//                                                                 mp.l.reduce_ln / mp.l.reduce_fc
// Job embedding: mean over nodes of the last layer. Graph module:
// LayerNorm(68) → Linear(68, G) (graph_ln / graph_fc; graph_norm = false drops the
// LayerNorm, so β's scale does not depend on the mask and occupancy). Heads on [embedding ‖ graph]:
// policy pi1 → ReLU → pi2 (17 logits), value v1 → ReLU → v2 (1).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace pacml::inference {

struct Architecture {
  std::string kind = "pacml-gnn";
  int node_in = 5, edge_in = 2, graph_in = 68, actions = 17;  // features.h's sizes
  int module_width = 16;                                      // W: node and edge module outputs
  std::vector<int> layers{64, 16};                            // d_out of each message-passing layer
  int graph_out = 8;                                          // G
  bool graph_norm = true;  // LayerNorm before the graph module (reference: yes)
  int head_hidden = 17;
  double layer_norm_eps = 1e-5;
  double mask_logit = -1e9;  // logit of a masked action (finite: no NaN in the entropy)

  int embedding() const { return layers.empty() ? node_in : layers.back(); }
  int head_in() const { return embedding() + graph_out; }

  nlohmann::json to_json() const;
  // Throws InputError(where, ...) for an unknown kind or bad sizes.
  static Architecture from_json(const nlohmann::json& j, const std::string& where);
  bool operator==(const Architecture& o) const { return to_json() == o.to_json(); }

  // Every tensor (name, shape) in a fixed order.
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> tensor_shapes() const;
};

}  // namespace pacml::inference
