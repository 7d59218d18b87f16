// The second translation unit of pacml that includes LibTorch (with
// torch_network.cpp): the GPU policy's network and its imitation update.
#include "model/gpu/torch_network.h"

#include <torch/torch.h>

#include <algorithm>
#include <stdexcept>

#include "core/util/error.h"
#include "model/torch_message_passing.h"

namespace pacml::gpu {

void DecisionBatch::add(int graph_index, const DecisionFeatures& f, int label_, float target_) {
  const int n = static_cast<int>(f.gpus.size());
  if (n < 1 || n > kMaxActions)
    throw std::invalid_argument("DecisionBatch: a decision has " + std::to_string(n) +
                                " candidates");
  if (label_ < 0 || label_ >= n) throw std::invalid_argument("DecisionBatch: label out of range");
  graph.push_back(graph_index);
  actions.push_back(n);
  state.insert(state.end(), f.job.begin(), f.job.end());
  state.insert(state.end(), f.context.begin(), f.context.end());
  action.insert(action.end(), f.actions.begin(), f.actions.end());
  action.insert(action.end(), static_cast<size_t>(kMaxActions - n) * kActionScalars, 0.f);
  label.push_back(label_);
  target.push_back(target_);
}

void DecisionBatch::add_from(const DecisionBatch& o, size_t k) {
  graph.push_back(o.graph[k]);
  actions.push_back(o.actions[k]);
  state.insert(state.end(), o.state.begin() + k * kStateScalars,
               o.state.begin() + (k + 1) * kStateScalars);
  const size_t row = static_cast<size_t>(kMaxActions) * kActionScalars;
  action.insert(action.end(), o.action.begin() + k * row, o.action.begin() + (k + 1) * row);
  label.push_back(o.label[k]);
  target.push_back(o.target[k]);
}

namespace {

using torch::Tensor;
namespace nn = torch::nn;

constexpr double kPaddingLogit = -1e9;  // finite, so the log-softmax stays finite

struct NetImpl : nn::Module {
  explicit NetImpl(const Architecture& a) : arch(a) {
    // Registration order fixes how the seed initialises the parameters.
    mp = register_module("mp", model::torch_mp::make_layers(a.graph));
    act1 = register_module("act1", nn::Linear(a.action_in(), a.hidden));
    act2 = register_module("act2", nn::Linear(a.hidden, a.hidden));
    act3 = register_module("act3", nn::Linear(a.hidden, 1));
    val1 = register_module("val1", nn::Linear(a.state_in(), a.hidden));
    val2 = register_module("val2", nn::Linear(a.hidden, 1));
  }

  // emb [graphs, E], graph [B], state [B, S], action [B, M, A], valid [B, M]
  // → logits [B, M] (padding masked), values [B].
  std::pair<Tensor, Tensor> heads(const Tensor& emb, const Tensor& graph, const Tensor& state,
                                  const Tensor& action, const Tensor& valid) {
    const Tensor s = torch::cat({emb.index_select(0, graph), state}, 1);
    const int64_t b = s.size(0), m = action.size(1);
    const Tensor x = torch::cat({s.unsqueeze(1).expand({b, m, s.size(1)}), action}, 2);
    const Tensor logits = act3(torch::relu(act2(torch::relu(act1(x))))).squeeze(-1);
    const Tensor values = val2(torch::relu(val1(s))).squeeze(-1);
    return {logits.masked_fill(valid.logical_not(), kPaddingLogit), values};
  }

  Architecture arch;
  nn::ModuleList mp{nullptr};
  nn::Linear act1{nullptr}, act2{nullptr}, act3{nullptr}, val1{nullptr}, val2{nullptr};
};
TORCH_MODULE(Net);

// A batch's decisions as tensors (all of them; minibatches index into them).
struct DecisionTensors {
  Tensor graph, state, action, valid, label, target;
};

Tensor i64_tensor(const std::vector<int>& v) {
  std::vector<int64_t> w(v.begin(), v.end());
  return torch::from_blob(w.data(), {static_cast<int64_t>(w.size())}, torch::kInt64).clone();
}

Tensor f32_tensor(const std::vector<float>& v, std::vector<int64_t> shape) {
  return torch::from_blob(const_cast<float*>(v.data()), shape, torch::kFloat32).clone();
}

void check_batch(const std::vector<features::JobFeatures>& graphs, const DecisionBatch& b) {
  const size_t n = b.size();
  if (b.actions.size() != n || b.label.size() != n || b.target.size() != n ||
      b.state.size() != n * DecisionBatch::kStateScalars ||
      b.action.size() != n * DecisionBatch::kMaxActions * static_cast<size_t>(kActionScalars))
    throw std::invalid_argument("DecisionBatch: sizes do not match the decision count");
  for (int g : b.graph)
    if (g < 0 || g >= static_cast<int>(graphs.size()))
      throw std::invalid_argument("DecisionBatch: graph index out of range");
}

DecisionTensors make_tensors(const DecisionBatch& b) {
  const int64_t n = static_cast<int64_t>(b.size()), m = DecisionBatch::kMaxActions;
  DecisionTensors t;
  t.graph = i64_tensor(b.graph);
  t.state = f32_tensor(b.state, {n, DecisionBatch::kStateScalars});
  t.action = f32_tensor(b.action, {n, m, kActionScalars});
  t.valid = torch::arange(m).unsqueeze(0).lt(i64_tensor(b.actions).unsqueeze(1));
  t.label = i64_tensor(b.label);
  t.target = f32_tensor(b.target, {n});
  return t;
}

// The distinct graphs of decisions `rows` (sorted), and each row's index among them.
void distinct_graphs(const DecisionBatch& b, const int64_t* rows, int64_t len,
                     std::vector<int>& which, std::vector<int>& local) {
  which.clear();
  for (int64_t i = 0; i < len; ++i) which.push_back(b.graph[rows[i]]);
  std::sort(which.begin(), which.end());
  which.erase(std::unique(which.begin(), which.end()), which.end());
  local.clear();
  for (int64_t i = 0; i < len; ++i)
    local.push_back(static_cast<int>(
        std::lower_bound(which.begin(), which.end(), b.graph[rows[i]]) - which.begin()));
}

void to_vector(const Tensor& t, std::vector<float>& out) {
  const Tensor c = t.contiguous();
  out.assign(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

}  // namespace

struct TorchNetwork::Impl {
  explicit Impl(const Architecture& a) : net(a) {}
  // Logits [len, M] and values [len] of decisions `rows`, message passing
  // over their distinct graphs only.
  std::pair<Tensor, Tensor> run(const std::vector<features::JobFeatures>& graphs,
                                const DecisionBatch& batch, const DecisionTensors& t,
                                const int64_t* rows, int64_t len);
  Net net;
  std::unique_ptr<torch::optim::Adam> optimizer;
};

std::pair<Tensor, Tensor> TorchNetwork::Impl::run(const std::vector<features::JobFeatures>& graphs,
                                                  const DecisionBatch& batch,
                                                  const DecisionTensors& t, const int64_t* rows,
                                                  int64_t len) {
  std::vector<int> which, local;
  distinct_graphs(batch, rows, len, which, local);
  const Tensor emb =
      model::torch_mp::embed(net->mp, model::torch_mp::make_graph_tensors(graphs, &which));
  std::vector<int64_t> r(rows, rows + len);
  const Tensor idx = torch::from_blob(r.data(), {len}, torch::kInt64).clone();
  return net->heads(emb, i64_tensor(local), t.state.index_select(0, idx),
                    t.action.index_select(0, idx), t.valid.index_select(0, idx));
}

TorchNetwork::TorchNetwork(const Architecture& arch, std::uint64_t seed, double lr) {
  torch::set_num_threads(1);
  torch::manual_seed(seed);
  impl_ = std::make_unique<Impl>(arch);
  impl_->optimizer =
      std::make_unique<torch::optim::Adam>(impl_->net->parameters(), torch::optim::AdamOptions(lr));
}

TorchNetwork::~TorchNetwork() = default;

const Architecture& TorchNetwork::architecture() const {
  return impl_->net->arch;
}

inference::WeightsFile TorchNetwork::export_weights(const nlohmann::json& metadata) const {
  return model::torch_mp::export_parameters(
      impl_->net->named_parameters(), architecture().tensor_shapes(), metadata, "TorchNetwork");
}

void TorchNetwork::import_weights(const inference::WeightsFile& weights, const std::string& where) {
  model::torch_mp::import_parameters(impl_->net->named_parameters(), weights,
                                     architecture().tensor_shapes(), where);
}

void TorchNetwork::forward(const std::vector<features::JobFeatures>& graphs,
                           const DecisionBatch& batch, std::vector<float>& logits,
                           std::vector<float>& values) const {
  check_batch(graphs, batch);
  logits.clear();
  values.clear();
  const int64_t n = static_cast<int64_t>(batch.size());
  if (n == 0) return;
  torch::NoGradGuard guard;
  const DecisionTensors t = make_tensors(batch);
  std::vector<int64_t> rows(n);
  for (int64_t i = 0; i < n; ++i) rows[i] = i;
  const auto [l, v] = impl_->run(graphs, batch, t, rows.data(), n);
  std::vector<float> padded;
  to_vector(l, padded);
  for (int64_t i = 0; i < n; ++i)
    logits.insert(logits.end(), padded.begin() + i * DecisionBatch::kMaxActions,
                  padded.begin() + i * DecisionBatch::kMaxActions + batch.actions[i]);
  to_vector(v, values);
}

TrainStats TorchNetwork::train(const std::vector<features::JobFeatures>& graphs,
                               const DecisionBatch& batch, const TrainParams& params, Rng& rng) {
  check_batch(graphs, batch);
  TrainStats stats;
  const int64_t n = static_cast<int64_t>(batch.size());
  if (n == 0) return stats;
  for (auto& group : impl_->optimizer->param_groups())
    static_cast<torch::optim::AdamOptions&>(group.options()).lr(params.lr);
  const DecisionTensors t = make_tensors(batch);
  std::vector<int64_t> order(n);
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  const int64_t mb = std::max(1, params.minibatch);
  auto& opt = *impl_->optimizer;
  for (int epoch = 0; epoch < params.epochs; ++epoch) {
    for (int64_t i = n - 1; i > 0; --i)
      std::swap(order[i],
                order[static_cast<int64_t>(rng.below(static_cast<std::uint64_t>(i + 1)))]);
    double sum_ce = 0, sum_v = 0, correct = 0;
    int steps = 0;
    for (int64_t start = 0; start < n; start += mb) {
      const int64_t len = std::min(mb, n - start);
      const auto [logits, values] = impl_->run(graphs, batch, t, order.data() + start, len);
      const Tensor idx = torch::from_blob(order.data() + start, {len}, torch::kInt64).clone();
      const Tensor label = t.label.index_select(0, idx);
      const Tensor ce =
          -torch::log_softmax(logits, 1).gather(1, label.unsqueeze(1)).squeeze(1).mean();
      const Tensor vl = (values - t.target.index_select(0, idx)).pow(2).mean();
      const Tensor loss = ce + params.value_coef * vl;
      opt.zero_grad();
      loss.backward();
      if (params.grad_clip > 0)
        nn::utils::clip_grad_norm_(impl_->net->parameters(), params.grad_clip);
      opt.step();
      torch::NoGradGuard guard;
      sum_ce += ce.item<double>() * static_cast<double>(len);
      sum_v += vl.item<double>() * static_cast<double>(len);
      correct += logits.argmax(1).eq(label).sum().item<double>();
      ++steps;
    }
    stats.loss = sum_ce / static_cast<double>(n);
    stats.value_loss = sum_v / static_cast<double>(n);
    stats.accuracy = correct / static_cast<double>(n);
    stats.gradient_steps += steps;
  }
  return stats;
}

}  // namespace pacml::gpu
