#include "core/inference/network.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>

#include "core/util/error.h"

namespace pacml::inference {
namespace {

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::RowVectorXf;

struct Linear {
  Mat w;  // out × in
  Vec b;  // out
};
struct Norm {
  Vec w, b;
};
struct MpLayer {
  Norm node_ln, edge_ln, reduce_ln;
  Linear node_fc, edge_fc, reduce_fc;
};

// Row-wise LayerNorm with biased variance, as torch::layer_norm.
void layer_norm_rows(Mat& x, const Norm& n, float eps) {
  const Eigen::Index d = x.cols();
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    auto row = x.row(i);
    const float mean = row.sum() / static_cast<float>(d);
    row.array() -= mean;
    const float var = row.squaredNorm() / static_cast<float>(d);
    row *= 1.0f / std::sqrt(var + eps);
    row = row.cwiseProduct(n.w) + n.b;
  }
}

Mat linear(const Mat& x, const Linear& l) {
  Mat y = x * l.w.transpose();
  y.rowwise() += l.b;
  return y;
}

}  // namespace

struct Network::Impl {
  Architecture arch;
  std::vector<MpLayer> layers;
  Norm graph_ln;
  Linear graph_fc, pi1, pi2, v1, v2;
};

Network::Network(const Architecture& arch, const WeightsFile& weights, const std::string& where)
    : impl_(std::make_unique<Impl>()) {
  impl_->arch = arch;
  const auto shapes = arch.tensor_shapes();
  for (const NamedTensor& t : weights.tensors) {
    bool known = false;
    for (const auto& [name, shape] : shapes) known = known || name == t.name;
    if (!known)
      throw InputError(where, "weights file has an unexpected tensor '" + t.name +
                                  "' for architecture " + arch.kind);
  }
  auto tensor = [&](const std::string& name) -> const NamedTensor& {
    const NamedTensor* t = weights.find(name);
    if (!t) throw InputError(where, "weights file lacks tensor '" + name + "'");
    for (const auto& [n, shape] : shapes)
      if (n == name && shape != t->shape) {
        std::string want, got;
        for (auto d : shape) want += (want.empty() ? "" : "x") + std::to_string(d);
        for (auto d : t->shape) got += (got.empty() ? "" : "x") + std::to_string(d);
        throw InputError(
            where, "tensor '" + name + "' has shape " + got + ", the architecture needs " + want);
      }
    return *t;
  };
  auto vec = [&](const std::string& name) {
    const NamedTensor& t = tensor(name);
    return Vec(Eigen::Map<const Vec>(t.data.data(), static_cast<Eigen::Index>(t.data.size())));
  };
  auto norm = [&](const std::string& p) { return Norm{vec(p + ".weight"), vec(p + ".bias")}; };
  auto lin = [&](const std::string& p) {
    const NamedTensor& t = tensor(p + ".weight");
    Linear l;
    l.w = Eigen::Map<const Mat>(t.data.data(), t.shape[0], t.shape[1]);
    l.b = vec(p + ".bias");
    return l;
  };
  for (size_t l = 0; l < arch.layers.size(); ++l) {
    const std::string p = "mp." + std::to_string(l) + ".";
    MpLayer layer;
    layer.node_ln = norm(p + "node_ln");
    layer.node_fc = lin(p + "node_fc");
    layer.edge_ln = norm(p + "edge_ln");
    layer.edge_fc = lin(p + "edge_fc");
    layer.reduce_ln = norm(p + "reduce_ln");
    layer.reduce_fc = lin(p + "reduce_fc");
    impl_->layers.push_back(std::move(layer));
  }
  if (arch.graph_norm) impl_->graph_ln = norm("graph_ln");
  impl_->graph_fc = lin("graph_fc");
  impl_->pi1 = lin("pi1");
  impl_->pi2 = lin("pi2");
  impl_->v1 = lin("v1");
  impl_->v2 = lin("v2");
}

Network::~Network() = default;
Network::Network(Network&&) noexcept = default;
Network& Network::operator=(Network&&) noexcept = default;

const Architecture& Network::architecture() const {
  return impl_->arch;
}

std::vector<float> Network::embed(const features::JobFeatures& job) const {
  const Architecture& a = impl_->arch;
  const float eps = static_cast<float>(a.layer_norm_eps);
  const int n = job.num_nodes, e = job.num_edges, w = a.module_width;
  if (n == 0) return std::vector<float>(a.embedding(), 0.f);
  Mat h = Eigen::Map<const Mat>(job.node.data(), n, a.node_in);
  const Mat edges = Eigen::Map<const Mat>(job.edge.data(), e, a.edge_in);
  std::vector<float> inv_count(n, 1.f);
  {
    std::vector<int> indeg(n, 0);
    for (int k = 0; k < e; ++k) ++indeg[job.dst[k]];
    for (int v = 0; v < n; ++v) inv_count[v] = 1.f / static_cast<float>(indeg[v] + 1);
  }
  for (const MpLayer& layer : impl_->layers) {
    Mat hn = h;
    layer_norm_rows(hn, layer.node_ln, eps);
    hn = linear(hn, layer.node_fc).cwiseMax(0.f);
    Mat en = edges;
    layer_norm_rows(en, layer.edge_ln, eps);
    en = linear(en, layer.edge_fc).cwiseMax(0.f);
    Mat msg(e + n, 2 * w);
    for (int k = 0; k < e; ++k) {
      msg.row(k).head(w) = hn.row(job.src[k]);
      msg.row(k).tail(w) = en.row(k);
    }
    msg.bottomRows(n).leftCols(w) = hn;
    msg.bottomRows(n).rightCols(w).setZero();
    layer_norm_rows(msg, layer.reduce_ln, eps);
    const Mat r = linear(msg, layer.reduce_fc).cwiseMax(0.f);
    Mat agg = r.bottomRows(n);
    for (int k = 0; k < e; ++k) agg.row(job.dst[k]) += r.row(k);
    for (int v = 0; v < n; ++v) agg.row(v) *= inv_count[v];
    h = std::move(agg);
  }
  const Vec mean = h.colwise().sum() / static_cast<float>(n);
  return std::vector<float>(mean.data(), mean.data() + mean.size());
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
