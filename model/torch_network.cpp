// One of the two translation units of pacml that include LibTorch (compile
// cost ~15 s, 1.5 GB; gpu/torch_network.cpp is the other): the paper-world
// network, its batched forward pass and the PPO update.
#include "model/torch_network.h"

#include <torch/torch.h>

#include <cstring>
#include <tuple>

#include "core/util/error.h"
#include "model/torch_message_passing.h"

namespace pacml::model {
namespace {

using torch::Tensor;
namespace nn = torch::nn;

inference::MessagePassingShape message_passing_shape(const inference::Architecture& a) {
  return {a.node_in, a.edge_in, a.module_width, a.layers, a.layer_norm_eps};
}

using torch_mp::GraphTensors;
using torch_mp::layer_norm;

GraphTensors make_graph_tensors(const GraphSet& set) {
  return torch_mp::make_graph_tensors(set.graphs);
}

struct NetImpl : nn::Module {
  explicit NetImpl(const inference::Architecture& a) : arch(a) {
    mp = register_module("mp", torch_mp::make_layers(message_passing_shape(a)));
    if (a.graph_norm)
      graph_ln = register_module("graph_ln", layer_norm(a.graph_in, a.layer_norm_eps));
    graph_fc = register_module("graph_fc", nn::Linear(a.graph_in, a.graph_out));
    pi1 = register_module("pi1", nn::Linear(a.head_in(), a.head_hidden));
    pi2 = register_module("pi2", nn::Linear(a.head_hidden, a.actions));
    v1 = register_module("v1", nn::Linear(a.head_in(), a.head_hidden));
    v2 = register_module("v2", nn::Linear(a.head_hidden, 1));
  }

  // [graphs, embedding]
  Tensor embed(const GraphTensors& g) { return torch_mp::embed(mp, g); }

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
  // One optimiser step on `loss`, the gradient's norm clipped to grad_clip (if > 0).
  void gradient_step(const Tensor& loss, double grad_clip);
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
  return torch_mp::export_parameters(impl_->net->named_parameters(), architecture().tensor_shapes(),
                                     metadata, "TorchNetwork");
}

void TorchNetwork::import_weights(const inference::WeightsFile& weights, const std::string& where) {
  torch_mp::import_parameters(impl_->net->named_parameters(), weights,
                              architecture().tensor_shapes(), where);
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

namespace {

// Fisher–Yates with the trainer's RNG, so that a seed gives the same
// minibatches.
void shuffle(std::vector<int64_t>& order, Rng& rng) {
  const int64_t n = static_cast<int64_t>(order.size());
  for (int64_t i = n - 1; i > 0; --i)
    std::swap(order[i], order[static_cast<int64_t>(rng.below(static_cast<std::uint64_t>(i + 1)))]);
}

// One minibatch's forward pass with gradients, and its rows of the batch.
struct Minibatch {
  Tensor inputs, logits, values, logp_all, logp, old_logp, advantages, returns, ratio;
};

Minibatch forward_minibatch(Net& net, const GraphTensors& g, const BatchTensors& b,
                            const Tensor& idx) {
  Minibatch m;
  // Message passing over the batch's distinct graphs, again for every
  // minibatch: the previous step changed the parameters.
  const Tensor emb = net->embed(g);
  m.inputs = b.inputs.index_select(0, idx);
  std::tie(m.logits, m.values) = net->heads(emb, b.graph.index_select(0, idx), m.inputs);
  m.logp_all = torch::log_softmax(m.logits, -1);
  m.logp = m.logp_all.gather(1, b.actions.index_select(0, idx).unsqueeze(1)).squeeze(1);
  m.old_logp = b.old_logp.index_select(0, idx);
  m.advantages = b.advantages.index_select(0, idx);
  m.returns = b.returns.index_select(0, idx);
  m.ratio = torch::exp(m.logp - m.old_logp);
  return m;
}

// The objective's policy term (TorchNetwork::Objective).
Tensor policy_loss(TorchNetwork::Objective objective, const Minibatch& m, const BatchTensors& b,
                   const Tensor& idx, const PpoParams& params) {
  if (objective == TorchNetwork::Objective::kSearchValues)
    return search_value_loss(m.logits, feasible_of(m.inputs, m.logits.size(1)),
                             b.action_values.index_select(0, idx), params.value_temperature);
  if (objective == TorchNetwork::Objective::kImitation) {
    // Cross-entropy against the teacher's action smoothed over the feasible
    // actions, so the student keeps some probability on the alternatives
    // and PPO can still explore them afterwards.
    const Tensor feasible = feasible_of(m.inputs, m.logits.size(1));
    const Tensor feasible_f = feasible.to(torch::kFloat32);
    const Tensor spread = (m.logp_all.masked_fill(feasible.logical_not(), 0) * feasible_f).sum(-1) /
                          feasible_f.sum(-1).clamp_min(1);
    return -((1 - params.imitation_smoothing) * m.logp + params.imitation_smoothing * spread)
                .mean();
  }
  return -torch::min(m.ratio * m.advantages,
                     torch::clamp(m.ratio, 1 - params.clip, 1 + params.clip) * m.advantages)
              .mean();
}

// The value term: squared error to the returns, with value_clip > 0 the
// larger of it and the error of the old value moved at most value_clip.
Tensor value_loss(const Minibatch& m, const BatchTensors& b, const Tensor& idx,
                  const PpoParams& params) {
  if (params.value_clip > 0) {
    const Tensor old_v = b.old_values.index_select(0, idx);
    const Tensor clipped =
        old_v + torch::clamp(m.values - old_v, -params.value_clip, params.value_clip);
    return 0.5 * torch::max((m.values - m.returns).pow(2), (clipped - m.returns).pow(2)).mean();
  }
  return 0.5 * (m.values - m.returns).pow(2).mean();
}

// PpoStats' figures summed over the gradient steps, then averaged.
struct PpoSums {
  double policy_loss = 0, value_loss = 0, entropy = 0, approx_kl = 0, clip_fraction = 0;

  void add(const Tensor& policy, const Tensor& value, const Tensor& entropy_term,
           const Minibatch& m, double clip) {
    torch::NoGradGuard guard;
    policy_loss += policy.item<double>();
    value_loss += value.item<double>();
    entropy += entropy_term.item<double>();
    approx_kl += (m.old_logp - m.logp).mean().item<double>();
    clip_fraction += ((m.ratio - 1).abs() > clip).to(torch::kFloat32).mean().item<double>();
  }

  void average_into(PpoStats& stats) const {
    const double k = std::max(1, stats.gradient_steps);
    stats.policy_loss = policy_loss / k;
    stats.value_loss = value_loss / k;
    stats.entropy = entropy / k;
    stats.approx_kl = approx_kl / k;
    stats.clip_fraction = clip_fraction / k;
  }
};

}  // namespace

void TorchNetwork::Impl::gradient_step(const Tensor& loss, double grad_clip) {
  optimizer->zero_grad();
  loss.backward();
  if (grad_clip > 0) nn::utils::clip_grad_norm_(net->parameters(), grad_clip);
  optimizer->step();
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
  PpoSums sums;
  for (int epoch = 0; epoch < params.epochs; ++epoch) {
    shuffle(order, rng);
    for (int64_t start = 0; start < n; start += mb) {
      const int64_t len = std::min(mb, n - start);
      const Tensor idx = torch::from_blob(order.data() + start, {len}, torch::kInt64).clone();
      const Minibatch m = forward_minibatch(impl_->net, g, b, idx);
      const Tensor policy = policy_loss(objective, m, b, idx, params);
      const Tensor value = value_loss(m, b, idx, params);
      const Tensor entropy = -(torch::softmax(m.logits, -1) * m.logp_all).sum(-1).mean();
      impl_->gradient_step(policy + params.value_coef * value - params.entropy_coef * entropy,
                           params.grad_clip);
      sums.add(policy, value, entropy, m, params.clip);
      ++stats.gradient_steps;
    }
  }
  sums.average_into(stats);
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
