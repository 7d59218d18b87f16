#include "core/inference/gpu_network.h"

#include "core/inference/eigen_layers.h"
#include "core/util/error.h"

namespace pacml::inference {

using namespace eigen;

nlohmann::json GpuArchitecture::to_json() const {
  return {{"kind", kKind},
          {"node_in", graph.node_in},
          {"edge_in", graph.edge_in},
          {"module_width", graph.module_width},
          {"layers", graph.layers},
          {"layer_norm_eps", graph.layer_norm_eps},
          {"hidden", hidden}};
}

GpuArchitecture GpuArchitecture::from_json(const nlohmann::json& j, const std::string& where) {
  GpuArchitecture a;
  try {
    const std::string kind = j.at("kind").get<std::string>();
    if (kind != kKind)
      throw InputError(where, "architecture '" + kind + "' is not a GPU policy (" + kKind + ")");
    a.graph.node_in = j.at("node_in").get<int>();
    a.graph.edge_in = j.at("edge_in").get<int>();
    a.graph.module_width = j.at("module_width").get<int>();
    a.graph.layers = j.at("layers").get<std::vector<int>>();
    a.graph.layer_norm_eps = j.at("layer_norm_eps").get<double>();
    a.hidden = j.at("hidden").get<int>();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(where, std::string("architecture: ") + e.what());
  }
  auto in_range = [&](int v, int hi, const char* what) {
    if (v < 1 || v > hi)
      throw InputError(where, std::string("architecture: ") + what + " must be 1.." +
                                  std::to_string(hi) + ", got " + std::to_string(v));
  };
  if (a.graph.node_in != features::kNodeFeatures || a.graph.edge_in != features::kEdgeFeatures)
    throw InputError(where, "architecture: node/edge inputs do not match this pacml's features");
  in_range(a.graph.module_width, 4096, "module_width");
  in_range(a.hidden, 4096, "hidden");
  in_range(static_cast<int>(a.graph.layers.size()), 16, "the number of message-passing layers");
  for (int d : a.graph.layers) in_range(d, 4096, "a layer width");
  if (!(a.graph.layer_norm_eps > 0)) throw InputError(where, "architecture: layer_norm_eps <= 0");
  return a;
}

TensorShapes GpuArchitecture::tensor_shapes() const {
  TensorShapes t;
  graph.append_tensor_shapes(t);
  auto fc = [&](const std::string& p, int in, int out) { append_linear_shape(t, p, in, out); };
  fc("act1", action_in(), hidden);
  fc("act2", hidden, hidden);
  fc("act3", hidden, 1);
  fc("val1", state_in(), hidden);
  fc("val2", hidden, 1);
  return t;
}

struct GpuNetwork::Impl {
  Impl(const GpuArchitecture& a, const TensorReader& r) : arch(a), message_passing(a.graph, r) {}
  GpuArchitecture arch;
  MessagePassing message_passing;
  Linear act1, act2, act3, val1, val2;
};

GpuNetwork::GpuNetwork(const GpuArchitecture& arch, const WeightsFile& weights,
                       const std::string& where) {
  const TensorShapes shapes = arch.tensor_shapes();
  const TensorReader r(weights, shapes, where, GpuArchitecture::kKind);
  impl_ = std::make_unique<Impl>(arch, r);
  impl_->act1 = read_linear(r, "act1");
  impl_->act2 = read_linear(r, "act2");
  impl_->act3 = read_linear(r, "act3");
  impl_->val1 = read_linear(r, "val1");
  impl_->val2 = read_linear(r, "val2");
}

GpuNetwork::~GpuNetwork() = default;
GpuNetwork::GpuNetwork(GpuNetwork&&) noexcept = default;
GpuNetwork& GpuNetwork::operator=(GpuNetwork&&) noexcept = default;

const GpuArchitecture& GpuNetwork::architecture() const {
  return impl_->arch;
}

std::vector<float> GpuNetwork::embed(const features::JobFeatures& job) const {
  return impl_->message_passing.embed(job);
}

namespace {
// The heads' matrices are tiny (a few candidates × tens of inputs): a
// coefficient-wise product beats the blocked GEMM, which spends its time
// packing.
Mat small_linear(const Mat& x, const Linear& l) {
  Mat y = x.lazyProduct(l.w.transpose());
  y.rowwise() += l.b;
  return y;
}
}  // namespace

void GpuNetwork::score(const std::vector<float>& embedding, const features::GpuDecisionFeatures& d,
                       std::vector<float>& logits, float* value) const {
  const Impl& m = *impl_;
  const int e = m.arch.graph.embedding(), state = m.arch.state_in();
  const int actions = static_cast<int>(d.gpus.size());
  Mat x(actions, m.arch.action_in());
  Mat s(1, state);
  s.leftCols(e) = Eigen::Map<const Mat>(embedding.data(), 1, e);
  s.middleCols(e, features::kGpuJobScalars) =
      Eigen::Map<const Mat>(d.job.data(), 1, features::kGpuJobScalars);
  s.rightCols(features::kGpuContextScalars) =
      Eigen::Map<const Mat>(d.context.data(), 1, features::kGpuContextScalars);
  x.leftCols(state) = s.replicate(actions, 1);
  x.rightCols(features::kGpuActionScalars) =
      Eigen::Map<const Mat>(d.actions.data(), actions, features::kGpuActionScalars);
  const Mat h = small_linear(small_linear(x, m.act1).cwiseMax(0.f), m.act2).cwiseMax(0.f);
  const Mat out = small_linear(h, m.act3);
  logits.assign(out.data(), out.data() + actions);
  if (value) *value = small_linear(small_linear(s, m.val1).cwiseMax(0.f), m.val2)(0, 0);
}

}  // namespace pacml::inference
