// The message-passing half of both LibTorch networks (core/inference/
// message_passing.h computes the same function with Eigen): the paper-world
// network (torch_network.cpp) and the GPU network (gpu/torch_network.cpp)
// register it under "mp", so their tensors are named mp.L.* as the weights
// file expects. Includes LibTorch: for those two translation units only.
#pragma once

#include <torch/torch.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "core/features/features.h"
#include "core/inference/message_passing.h"
#include "core/util/error.h"

namespace pacml::model::torch_mp {

using torch::Tensor;
namespace nn = torch::nn;

inline nn::LayerNorm layer_norm(int d, double eps) {
  return nn::LayerNorm(nn::LayerNormOptions({d}).eps(eps).elementwise_affine(true));
}

struct MpLayerImpl : nn::Module {
  MpLayerImpl(int d_in, int width, int edge_in, int d_out, double eps)
      : node_ln(register_module("node_ln", layer_norm(d_in, eps))),
        node_fc(register_module("node_fc", nn::Linear(d_in, width))),
        edge_ln(register_module("edge_ln", layer_norm(edge_in, eps))),
        edge_fc(register_module("edge_fc", nn::Linear(edge_in, width))),
        reduce_ln(register_module("reduce_ln", layer_norm(2 * width, eps))),
        reduce_fc(register_module("reduce_fc", nn::Linear(2 * width, d_out))),
        width_(width) {}

  nn::LayerNorm node_ln;
  nn::Linear node_fc;
  nn::LayerNorm edge_ln;
  nn::Linear edge_fc;
  nn::LayerNorm reduce_ln;
  nn::Linear reduce_fc;
  int width_;
};
TORCH_MODULE(MpLayer);

// The layers in registration order (which fixes how the seed initialises them).
inline nn::ModuleList make_layers(const inference::MessagePassingShape& s) {
  nn::ModuleList mp;
  int d_in = s.node_in;
  for (int d_out : s.layers) {
    mp->push_back(MpLayer(d_in, s.module_width, s.edge_in, d_out, s.layer_norm_eps));
    d_in = d_out;
  }
  return mp;
}

// The disjoint union of some job graphs as tensors.
struct GraphTensors {
  Tensor x, e, src, dst, inv_count, node_graph, inv_nodes;
  int64_t graphs = 0, nodes = 0, edges = 0;
};

// `graphs[k]` for k in `which` (all of them when `which` is null), in that order.
inline GraphTensors make_graph_tensors(const std::vector<features::JobFeatures>& graphs,
                                       const std::vector<int>* which = nullptr) {
  GraphTensors t;
  std::vector<int> all;
  if (!which) {
    for (size_t k = 0; k < graphs.size(); ++k) all.push_back(static_cast<int>(k));
    which = &all;
  }
  t.graphs = static_cast<int64_t>(which->size());
  for (int k : *which) t.nodes += graphs[k].num_nodes, t.edges += graphs[k].num_edges;
  std::vector<float> x, e, inv_count, inv_nodes;
  std::vector<int64_t> src, dst, node_graph;
  x.reserve(t.nodes * features::kNodeFeatures);
  e.reserve(t.edges * features::kEdgeFeatures);
  int64_t offset = 0;
  for (size_t gi = 0; gi < which->size(); ++gi) {
    const auto& g = graphs[(*which)[gi]];
    x.insert(x.end(), g.node.begin(), g.node.end());
    e.insert(e.end(), g.edge.begin(), g.edge.end());
    std::vector<int> indeg(g.num_nodes, 0);
    for (int k = 0; k < g.num_edges; ++k) {
      src.push_back(offset + g.src[k]);
      dst.push_back(offset + g.dst[k]);
      ++indeg[g.dst[k]];
    }
    for (int v = 0; v < g.num_nodes; ++v) {
      inv_count.push_back(1.f / static_cast<float>(indeg[v] + 1));
      node_graph.push_back(static_cast<int64_t>(gi));
    }
    inv_nodes.push_back(g.num_nodes > 0 ? 1.f / static_cast<float>(g.num_nodes) : 0.f);
    offset += g.num_nodes;
  }
  auto f32 = [](std::vector<float>& v, std::vector<int64_t> shape) {
    return torch::from_blob(v.data(), shape, torch::kFloat32).clone();
  };
  auto i64 = [](std::vector<int64_t>& v) {
    return torch::from_blob(v.data(), {static_cast<int64_t>(v.size())}, torch::kInt64).clone();
  };
  t.x = f32(x, {t.nodes, features::kNodeFeatures});
  t.e = f32(e, {t.edges, features::kEdgeFeatures});
  t.inv_count = f32(inv_count, {t.nodes, 1});
  t.inv_nodes = f32(inv_nodes, {t.graphs, 1});
  t.src = i64(src);
  t.dst = i64(dst);
  t.node_graph = i64(node_graph);
  return t;
}

// Job embeddings [graphs, embedding]: every layer, then the mean over nodes.
inline Tensor embed(const nn::ModuleList& mp, const GraphTensors& g) {
  Tensor h = g.x;
  for (const auto& m : *mp) {
    auto* layer = m->as<MpLayerImpl>();
    const int64_t w = layer->width_;
    Tensor hn = torch::relu(layer->node_fc(layer->node_ln(h)));
    Tensor en = torch::relu(layer->edge_fc(layer->edge_ln(g.e)));
    Tensor msg_e = torch::cat({hn.index_select(0, g.src), en}, 1);
    Tensor msg_s = torch::cat({hn, torch::zeros({g.nodes, w}, hn.options())}, 1);
    Tensor r = torch::relu(layer->reduce_fc(layer->reduce_ln(torch::cat({msg_e, msg_s}, 0))));
    Tensor agg = r.slice(0, g.edges, g.edges + g.nodes).index_add(0, g.dst, r.slice(0, 0, g.edges));
    h = agg * g.inv_count;
  }
  return torch::zeros({g.graphs, h.size(1)}, h.options()).index_add_(0, g.node_graph, h) *
         g.inv_nodes;
}

// A network's parameters as a weights file, in the order and shapes the
// architecture declares (`who` names the network in a logic error).
inline inference::WeightsFile export_parameters(
    const torch::OrderedDict<std::string, torch::Tensor>& params,
    const inference::TensorShapes& shapes, const nlohmann::json& metadata, const std::string& who) {
  inference::WeightsFile file;
  file.metadata = metadata;
  for (const auto& [name, shape] : shapes) {
    const torch::Tensor* p = params.find(name);
    if (!p) throw std::logic_error(who + ": no parameter " + name);
    const torch::Tensor c = p->detach().contiguous().to(torch::kFloat32);
    if (c.sizes().vec() != shape)
      throw std::logic_error(who + ": parameter " + name + " has the wrong shape");
    inference::NamedTensor t;
    t.name = name;
    t.shape = shape;
    t.data.assign(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    file.tensors.push_back(std::move(t));
  }
  return file;
}

// Copies a weights file's tensors into the parameters; InputError(where, ...)
// for a missing or mis-shaped tensor.
inline void import_parameters(torch::OrderedDict<std::string, torch::Tensor> params,
                              const inference::WeightsFile& weights,
                              const inference::TensorShapes& shapes, const std::string& where) {
  torch::NoGradGuard guard;
  for (const auto& [name, shape] : shapes) {
    const inference::NamedTensor* t = weights.find(name);
    if (!t) throw InputError(where, "weights file lacks tensor '" + name + "'");
    if (t->shape != shape) throw InputError(where, "tensor '" + name + "' has the wrong shape");
    params.find(name)->copy_(
        torch::from_blob(const_cast<float*>(t->data.data()), t->shape, torch::kFloat32));
  }
}

}  // namespace pacml::model::torch_mp
