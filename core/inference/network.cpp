#include "core/inference/network.h"

#include <algorithm>
#include <cmath>

#include "core/inference/eigen_layers.h"
#include "core/inference/message_passing.h"

namespace pacml::inference {

using namespace eigen;

namespace {
MessagePassingShape message_passing_shape(const Architecture& a) {
  return MessagePassingShape{a.node_in, a.edge_in, a.module_width, a.layers, a.layer_norm_eps};
}
}  // namespace

struct Network::Impl {
  Impl(const Architecture& a, const TensorReader& r)
      : arch(a), message_passing(message_passing_shape(a), r) {}
  Architecture arch;
  MessagePassing message_passing;
  Norm graph_ln;
  Linear graph_fc, pi1, pi2, v1, v2;
};

Network::Network(const Architecture& arch, const WeightsFile& weights, const std::string& where) {
  const TensorShapes shapes = arch.tensor_shapes();
  const TensorReader r(weights, shapes, where, arch.kind);
  impl_ = std::make_unique<Impl>(arch, r);
  if (arch.graph_norm) impl_->graph_ln = read_norm(r, "graph_ln");
  impl_->graph_fc = read_linear(r, "graph_fc");
  impl_->pi1 = read_linear(r, "pi1");
  impl_->pi2 = read_linear(r, "pi2");
  impl_->v1 = read_linear(r, "v1");
  impl_->v2 = read_linear(r, "v2");
}

Network::~Network() = default;
Network::Network(Network&&) noexcept = default;
Network& Network::operator=(Network&&) noexcept = default;

const Architecture& Network::architecture() const {
  return impl_->arch;
}

std::vector<float> Network::embed(const features::JobFeatures& job) const {
  return impl_->message_passing.embed(job);
}

void Network::heads(const float* embedding, const float* graph_inputs, float* logits,
                    float* value) const {
  const Impl& m = *impl_;
  const Architecture& a = m.arch;
  Mat g = Eigen::Map<const Mat>(graph_inputs, 1, a.graph_in);
  if (a.graph_norm) layer_norm_rows(g, m.graph_ln, static_cast<float>(a.layer_norm_eps));
  const Mat gout = linear(g, m.graph_fc);
  Mat z(1, a.head_in());
  z.leftCols(a.embedding()) = Eigen::Map<const Mat>(embedding, 1, a.embedding());
  z.rightCols(a.graph_out) = gout;
  const Mat p = linear(linear(z, m.pi1).cwiseMax(0.f), m.pi2);
  const Mat v = linear(linear(z, m.v1).cwiseMax(0.f), m.v2);
  const int mask_start = a.graph_in - a.actions;
  for (int i = 0; i < a.actions; ++i)
    logits[i] = graph_inputs[mask_start + i] != 0.f ? p(0, i) : static_cast<float>(a.mask_logit);
  *value = v(0, 0);
}

int greedy_action(const float* logits, const std::vector<bool>& mask) {
  int best = -1;
  for (int a = 0; a < static_cast<int>(mask.size()); ++a)
    if (mask[a] && (best < 0 || logits[a] > logits[best])) best = a;
  return best < 0 ? 0 : best;
}

std::vector<double> masked_softmax(const float* logits, const std::vector<bool>& mask) {
  std::vector<double> p(mask.size(), 0.0);
  double mx = -INFINITY;
  for (size_t a = 0; a < mask.size(); ++a)
    if (mask[a]) mx = std::max(mx, static_cast<double>(logits[a]));
  double sum = 0;
  for (size_t a = 0; a < mask.size(); ++a)
    if (mask[a]) sum += p[a] = std::exp(static_cast<double>(logits[a]) - mx);
  for (double& x : p) x = sum > 0 ? x / sum : 0;
  return p;
}

}  // namespace pacml::inference
