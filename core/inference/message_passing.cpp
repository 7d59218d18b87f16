#include "core/inference/message_passing.h"

#include "core/inference/eigen_layers.h"
#include "core/util/error.h"

namespace pacml::inference {

using namespace eigen;

void append_layer_norm_shape(TensorShapes& out, const std::string& prefix, int d) {
  out.push_back({prefix + ".weight", {d}});
  out.push_back({prefix + ".bias", {d}});
}

void append_linear_shape(TensorShapes& out, const std::string& prefix, int in, int out_dim) {
  out.push_back({prefix + ".weight", {out_dim, in}});
  out.push_back({prefix + ".bias", {out_dim}});
}

void MessagePassingShape::append_tensor_shapes(TensorShapes& t) const {
  auto ln = [&](const std::string& p, int d) { append_layer_norm_shape(t, p, d); };
  auto fc = [&](const std::string& p, int in, int out) { append_linear_shape(t, p, in, out); };
  int d_in = node_in;
  for (size_t l = 0; l < layers.size(); ++l) {
    const std::string p = "mp." + std::to_string(l) + ".";
    ln(p + "node_ln", d_in);
    fc(p + "node_fc", d_in, module_width);
    ln(p + "edge_ln", edge_in);
    fc(p + "edge_fc", edge_in, module_width);
    ln(p + "reduce_ln", 2 * module_width);
    fc(p + "reduce_fc", 2 * module_width, layers[l]);
    d_in = layers[l];
  }
}

namespace {
std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s;
  for (auto d : shape) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}
}  // namespace

TensorReader::TensorReader(const WeightsFile& weights, const TensorShapes& shapes,
                           std::string where, const std::string& kind)
    : weights_(weights), shapes_(shapes), where_(std::move(where)) {
  for (const NamedTensor& t : weights.tensors) {
    bool known = false;
    for (const auto& [name, shape] : shapes) known = known || name == t.name;
    if (!known)
      throw InputError(where_, "weights file has an unexpected tensor '" + t.name +
                                   "' for architecture " + kind);
  }
}

const NamedTensor& TensorReader::tensor(const std::string& name) const {
  const NamedTensor* t = weights_.find(name);
  if (!t) throw InputError(where_, "weights file lacks tensor '" + name + "'");
  for (const auto& [n, shape] : shapes_)
    if (n == name && shape != t->shape)
      throw InputError(where_, "tensor '" + name + "' has shape " + shape_text(t->shape) +
                                   ", the architecture needs " + shape_text(shape));
  return *t;
}

namespace {
struct MpLayer {
  Norm node_ln, edge_ln, reduce_ln;
  Linear node_fc, edge_fc, reduce_fc;
};
}  // namespace

struct MessagePassing::Impl {
  std::vector<MpLayer> layers;
};

MessagePassing::MessagePassing(const MessagePassingShape& shape, const TensorReader& r)
    : shape_(shape), impl_(std::make_unique<Impl>()) {
  for (size_t l = 0; l < shape.layers.size(); ++l) {
    const std::string p = "mp." + std::to_string(l) + ".";
    MpLayer layer;
    layer.node_ln = read_norm(r, p + "node_ln");
    layer.node_fc = read_linear(r, p + "node_fc");
    layer.edge_ln = read_norm(r, p + "edge_ln");
    layer.edge_fc = read_linear(r, p + "edge_fc");
    layer.reduce_ln = read_norm(r, p + "reduce_ln");
    layer.reduce_fc = read_linear(r, p + "reduce_fc");
    impl_->layers.push_back(std::move(layer));
  }
}

MessagePassing::~MessagePassing() = default;
MessagePassing::MessagePassing(MessagePassing&&) noexcept = default;
MessagePassing& MessagePassing::operator=(MessagePassing&&) noexcept = default;

std::vector<float> MessagePassing::embed(const features::JobFeatures& job) const {
  const MessagePassingShape& a = shape_;
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

}  // namespace pacml::inference
