// The only translation unit of pacml that includes LibTorch (compile cost
// ~15 s, 1.5 GB): the network, its batched forward pass and the PPO update.
#include "model/torch_network.h"

#include <torch/torch.h>

#include <cstring>

#include "core/util/error.h"

namespace pacml::model {
namespace {

using torch::Tensor;
namespace nn = torch::nn;

nn::LayerNorm layer_norm(int d, double eps) {
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

// The disjoint union of a GraphSet as tensors.
struct GraphTensors {
  Tensor x, e, src, dst, inv_count, node_graph, inv_nodes;
  int64_t graphs = 0, nodes = 0, edges = 0;
};

GraphTensors make_graph_tensors(const GraphSet& set) {
  GraphTensors t;
  t.graphs = static_cast<int64_t>(set.graphs.size());
  for (const auto& g : set.graphs) t.nodes += g.num_nodes, t.edges += g.num_edges;
  std::vector<float> x, e, inv_count, inv_nodes;
  std::vector<int64_t> src, dst, node_graph;
  x.reserve(t.nodes * features::kNodeFeatures);
  e.reserve(t.edges * features::kEdgeFeatures);
  int64_t offset = 0;
  for (size_t gi = 0; gi < set.graphs.size(); ++gi) {
    const auto& g = set.graphs[gi];
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

struct NetImpl : nn::Module {
  explicit NetImpl(const inference::Architecture& a) : arch(a) {
    mp = register_module("mp", nn::ModuleList());
    int d_in = a.node_in;
    for (int d_out : a.layers) {
      mp->push_back(MpLayer(d_in, a.module_width, a.edge_in, d_out, a.layer_norm_eps));
      d_in = d_out;
    }
    if (a.graph_norm)
      graph_ln = register_module("graph_ln", layer_norm(a.graph_in, a.layer_norm_eps));
    graph_fc = register_module("graph_fc", nn::Linear(a.graph_in, a.graph_out));
    pi1 = register_module("pi1", nn::Linear(a.head_in(), a.head_hidden));
    pi2 = register_module("pi2", nn::Linear(a.head_hidden, a.actions));
    v1 = register_module("v1", nn::Linear(a.head_in(), a.head_hidden));
    v2 = register_module("v2", nn::Linear(a.head_hidden, 1));
  }

  // [graphs, embedding]
  Tensor embed(const GraphTensors& g) {
    Tensor h = g.x;
    for (const auto& m : *mp) {
      auto* layer = m->as<MpLayerImpl>();
      const int64_t w = layer->width_;
      Tensor hn = torch::relu(layer->node_fc(layer->node_ln(h)));
      Tensor en = torch::relu(layer->edge_fc(layer->edge_ln(g.e)));
      Tensor msg_e = torch::cat({hn.index_select(0, g.src), en}, 1);
      Tensor msg_s = torch::cat({hn, torch::zeros({g.nodes, w}, hn.options())}, 1);
      Tensor r = torch::relu(layer->reduce_fc(layer->reduce_ln(torch::cat({msg_e, msg_s}, 0))));
      Tensor agg =
          r.slice(0, g.edges, g.edges + g.nodes).index_add(0, g.dst, r.slice(0, 0, g.edges));
      h = agg * g.inv_count;
    }
    return torch::zeros({g.graphs, h.size(1)}, h.options()).index_add_(0, g.node_graph, h) *
           g.inv_nodes;
  }

  // logits [B, actions] (masked), values [B]
  std::pair<Tensor, Tensor> heads(const Tensor& emb, const Tensor& graph_index,
                                  const Tensor& inputs) {
    Tensor g = graph_fc(arch.graph_norm ? graph_ln(inputs) : inputs);
    Tensor z = torch::cat({emb.index_select(0, graph_index), g}, 1);
    Tensor mask = inputs.slice(1, arch.graph_in - arch.actions, arch.graph_in).eq(0);
    Tensor logits = pi2(torch::relu(pi1(z))).masked_fill(mask, arch.mask_logit);
    Tensor values = v2(torch::relu(v1(z))).squeeze(-1);
    return {logits, values};
  }

  inference::Architecture arch;
  nn::ModuleList mp{nullptr};
  nn::LayerNorm graph_ln{nullptr};
  nn::Linear graph_fc{nullptr}, pi1{nullptr}, pi2{nullptr}, v1{nullptr}, v2{nullptr};
};
TORCH_MODULE(Net);

struct BatchTensors {
  Tensor graph, inputs, actions, old_logp, advantages, returns, old_values;
  Tensor action_values;  // defined only when the batch carries them
};

BatchTensors make_batch_tensors(const StepBatch& b, bool ppo) {
  const int64_t n = static_cast<int64_t>(b.size());
  BatchTensors t;
  std::vector<int64_t> graph(b.graph.begin(), b.graph.end());
  t.graph = torch::from_blob(graph.data(), {n}, torch::kInt64).clone();
  t.inputs = torch::from_blob(const_cast<float*>(b.inputs.data()), {n, features::kGraphInputs},
                              torch::kFloat32)
                 .clone();
  if (ppo) {
    std::vector<int64_t> actions(b.actions.begin(), b.actions.end());
    t.actions = torch::from_blob(actions.data(), {n}, torch::kInt64).clone();
    auto f = [&](const std::vector<float>& v) {
      return torch::from_blob(const_cast<float*>(v.data()), {n}, torch::kFloat32).clone();
    };
    t.old_logp = f(b.old_logp);
    t.advantages = f(b.advantages);
    t.returns = f(b.returns);
    t.old_values = f(b.old_values);
    if (!b.action_values.empty())
      t.action_values = torch::from_blob(const_cast<float*>(b.action_values.data()),
                                         {n, features::kNumActions}, torch::kFloat32)
                            .clone();
  }
  return t;
}

// Mean over steps of the squared error between the centred logits of the
// feasible actions and their centred values / temperature (centring makes it
// blind to the softmax's free offset). A step with one feasible action adds 0.
Tensor search_value_loss(const Tensor& logits, const Tensor& feasible, const Tensor& values,
                         double temperature) {
  const Tensor f = feasible.to(torch::kFloat32);
  const Tensor count = f.sum(-1, /*keepdim=*/true).clamp_min(1);
  const Tensor l = logits.masked_fill(feasible.logical_not(), 0);
  const Tensor q = values.masked_fill(feasible.logical_not(), 0) / temperature;
  const Tensor lc = l - (l * f).sum(-1, true) / count;
  const Tensor qc = q - (q * f).sum(-1, true) / count;
  return (((lc - qc).pow(2) * f).sum(-1) / count.squeeze(1)).mean();
}

// The feasible actions of each step: the last `actions` graph inputs.
Tensor feasible_of(const Tensor& inputs, int64_t actions) {
  return inputs.slice(1, inputs.size(1) - actions).gt(0);
}

void check_batch(const GraphSet& graphs, const StepBatch& b) {
  if (b.inputs.size() != b.size() * features::kGraphInputs)
    throw std::invalid_argument("StepBatch: inputs do not match the step count");
  if (!b.action_values.empty() && b.action_values.size() != b.size() * features::kNumActions)
    throw std::invalid_argument("StepBatch: action values do not match the step count");
  for (int g : b.graph)
    if (g < 0 || g >= static_cast<int>(graphs.graphs.size()))
      throw std::invalid_argument("StepBatch: graph index out of range");
}

}  // namespace

struct TorchNetwork::Impl {
  explicit Impl(const inference::Architecture& a) : net(a) {}
  // Logits and values of a batch without gradients (one message passing per graph).
  std::pair<Tensor, Tensor> heads_no_grad(const GraphSet& graphs, const StepBatch& batch);
  Net net;
  std::unique_ptr<torch::optim::Adam> optimizer;
};

TorchNetwork::TorchNetwork(const inference::Architecture& arch, std::uint64_t seed, double lr) {
  torch::set_num_threads(1);
  torch::manual_seed(seed);
  impl_ = std::make_unique<Impl>(arch);
  impl_->optimizer =
      std::make_unique<torch::optim::Adam>(impl_->net->parameters(), torch::optim::AdamOptions(lr));
}

TorchNetwork::~TorchNetwork() = default;

const inference::Architecture& TorchNetwork::architecture() const {
  return impl_->net->arch;
}

inference::WeightsFile TorchNetwork::export_weights(const nlohmann::json& metadata) const {
  inference::WeightsFile file;
  file.metadata = metadata;
  const auto params = impl_->net->named_parameters();
  for (const auto& [name, shape] : architecture().tensor_shapes()) {
    const Tensor* p = params.find(name);
    if (!p) throw std::logic_error("TorchNetwork: no parameter " + name);
    Tensor c = p->detach().contiguous().to(torch::kFloat32);
    inference::NamedTensor t;
    t.name = name;
    t.shape = c.sizes().vec();
    t.data.assign(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    file.tensors.push_back(std::move(t));
  }
  return file;
}

void TorchNetwork::import_weights(const inference::WeightsFile& weights, const std::string& where) {
  torch::NoGradGuard guard;
  auto params = impl_->net->named_parameters();
  for (const auto& [name, shape] : architecture().tensor_shapes()) {
    const inference::NamedTensor* t = weights.find(name);
    if (!t) throw InputError(where, "weights file lacks tensor '" + name + "'");
    if (t->shape != shape) throw InputError(where, "tensor '" + name + "' has the wrong shape");
    Tensor* p = params.find(name);
    p->copy_(torch::from_blob(const_cast<float*>(t->data.data()), t->shape, torch::kFloat32));
  }
}

namespace {

// Copies a float tensor into `out`.
void to_vector(const Tensor& t, std::vector<float>& out) {
  const Tensor c = t.contiguous();
  out.assign(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

}  // namespace

std::pair<Tensor, Tensor> TorchNetwork::Impl::heads_no_grad(const GraphSet& graphs,
                                                            const StepBatch& batch) {
  check_batch(graphs, batch);
  torch::NoGradGuard guard;
  const GraphTensors g = make_graph_tensors(graphs);
  const BatchTensors b = make_batch_tensors(batch, false);
  return net->heads(net->embed(g), b.graph, b.inputs);
}

void TorchNetwork::forward(const GraphSet& graphs, const StepBatch& batch,
                           std::vector<float>& logits, std::vector<float>& values) const {
  const auto [l, v] = impl_->heads_no_grad(graphs, batch);
  to_vector(l, logits);
  to_vector(v, values);
}

void TorchNetwork::evaluate_actions(const GraphSet& graphs, const StepBatch& batch,
                                    std::vector<float>& logp, std::vector<float>& values) const {
  const auto [l, v] = impl_->heads_no_grad(graphs, batch);
  std::vector<int64_t> actions(batch.actions.begin(), batch.actions.end());
  const Tensor a =
      torch::from_blob(actions.data(), {static_cast<int64_t>(actions.size())}, torch::kInt64);
  torch::NoGradGuard guard;
  to_vector(torch::log_softmax(l, -1).gather(1, a.unsqueeze(1)).squeeze(1), logp);
  to_vector(v, values);
}

PpoStats TorchNetwork::ppo_update(const GraphSet& graphs, const StepBatch& batch,
                                  const PpoParams& params, Rng& rng, Objective objective) {
  check_batch(graphs, batch);
  PpoStats stats;
  const int64_t n = static_cast<int64_t>(batch.size());
  if (n == 0) return stats;
  if (objective == Objective::kSearchValues && batch.action_values.empty())
    throw std::invalid_argument("ppo_update: kSearchValues needs the batch's action values");
  const GraphTensors g = make_graph_tensors(graphs);
  BatchTensors b = make_batch_tensors(batch, true);
  if (params.normalise_advantages && n > 1)
    b.advantages = (b.advantages - b.advantages.mean()) / (b.advantages.std() + 1e-8);
  std::vector<int64_t> order(n);
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  const int64_t mb = std::max<int64_t>(1, params.minibatch);
  auto& net = impl_->net;
  auto& opt = *impl_->optimizer;
  double sum_pl = 0, sum_vl = 0, sum_ent = 0, sum_kl = 0, sum_clip = 0;
  for (int epoch = 0; epoch < params.epochs; ++epoch) {
    for (int64_t i = n - 1; i > 0; --i)
      std::swap(order[i],
                order[static_cast<int64_t>(rng.below(static_cast<std::uint64_t>(i + 1)))]);
    for (int64_t start = 0; start < n; start += mb) {
      const int64_t len = std::min(mb, n - start);
      const Tensor idx = torch::from_blob(order.data() + start, {len}, torch::kInt64).clone();
      const Tensor emb = net->embed(g);
      const Tensor inputs = b.inputs.index_select(0, idx);
      auto [logits, values] = net->heads(emb, b.graph.index_select(0, idx), inputs);
      const Tensor logp_all = torch::log_softmax(logits, -1);
      const Tensor logp =
          logp_all.gather(1, b.actions.index_select(0, idx).unsqueeze(1)).squeeze(1);
      const Tensor old_logp = b.old_logp.index_select(0, idx);
      const Tensor adv = b.advantages.index_select(0, idx);
      const Tensor ret = b.returns.index_select(0, idx);
      const Tensor ratio = torch::exp(logp - old_logp);
      Tensor policy_loss;
      if (objective == Objective::kSearchValues) {
        policy_loss =
            search_value_loss(logits, feasible_of(inputs, logits.size(1)),
                              b.action_values.index_select(0, idx), params.value_temperature);
      } else if (objective == Objective::kImitation) {
        // Cross-entropy against the teacher's action smoothed over the feasible
        // actions, so the student keeps some probability on the alternatives
        // and PPO can still explore them afterwards.
        const Tensor feasible = feasible_of(inputs, logits.size(1));
        const Tensor feasible_f = feasible.to(torch::kFloat32);
        const Tensor spread =
            (logp_all.masked_fill(feasible.logical_not(), 0) * feasible_f).sum(-1) /
            feasible_f.sum(-1).clamp_min(1);
        policy_loss =
            -((1 - params.imitation_smoothing) * logp + params.imitation_smoothing * spread).mean();
      } else {
        policy_loss =
            -torch::min(ratio * adv, torch::clamp(ratio, 1 - params.clip, 1 + params.clip) * adv)
                 .mean();
      }
      Tensor value_loss;
      if (params.value_clip > 0) {
        const Tensor old_v = b.old_values.index_select(0, idx);
        const Tensor clipped =
            old_v + torch::clamp(values - old_v, -params.value_clip, params.value_clip);
        value_loss = 0.5 * torch::max((values - ret).pow(2), (clipped - ret).pow(2)).mean();
      } else {
        value_loss = 0.5 * (values - ret).pow(2).mean();
      }
      const Tensor entropy = -(torch::softmax(logits, -1) * logp_all).sum(-1).mean();
      const Tensor loss =
          policy_loss + params.value_coef * value_loss - params.entropy_coef * entropy;
      opt.zero_grad();
      loss.backward();
      if (params.grad_clip > 0) nn::utils::clip_grad_norm_(net->parameters(), params.grad_clip);
      opt.step();
      {
        torch::NoGradGuard guard;
        sum_pl += policy_loss.item<double>();
        sum_vl += value_loss.item<double>();
        sum_ent += entropy.item<double>();
        sum_kl += (old_logp - logp).mean().item<double>();
        sum_clip += ((ratio - 1).abs() > params.clip).to(torch::kFloat32).mean().item<double>();
      }
      ++stats.gradient_steps;
    }
  }
  const double k = std::max(1, stats.gradient_steps);
  stats.policy_loss = sum_pl / k;
  stats.value_loss = sum_vl / k;
  stats.entropy = sum_ent / k;
  stats.approx_kl = sum_kl / k;
  stats.clip_fraction = sum_clip / k;
  return stats;
}

void TorchNetwork::set_learning_rate(double lr) {
  for (auto& group : impl_->optimizer->param_groups())
    static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
}

void TorchNetwork::save_optimizer(const std::string& path) const {
  torch::save(*impl_->optimizer, path);
}

void TorchNetwork::load_optimizer(const std::string& path) {
  try {
    torch::load(*impl_->optimizer, path);
  } catch (const c10::Error& e) {
    throw InputError(path,
                     std::string("cannot load the optimizer state: ") + e.what_without_backtrace());
  }
}

}  // namespace pacml::model
