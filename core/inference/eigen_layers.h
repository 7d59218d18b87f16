// Eigen building blocks of the learned networks' forward passes, computed as
// LibTorch computes them (model/), so both give the same numbers.
#pragma once

#include <cmath>
#include <string>

#include <Eigen/Dense>

#include "core/inference/message_passing.h"

namespace pacml::inference::eigen {

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::RowVectorXf;

struct Linear {
  Mat w;  // out × in
  Vec b;  // out
};
struct Norm {
  Vec w, b;
};

// Row-wise LayerNorm with biased variance, as torch::layer_norm.
inline void layer_norm_rows(Mat& x, const Norm& n, float eps) {
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

inline Mat linear(const Mat& x, const Linear& l) {
  Mat y = x * l.w.transpose();
  y.rowwise() += l.b;
  return y;
}

inline Vec read_vec(const TensorReader& r, const std::string& name) {
  const NamedTensor& t = r.tensor(name);
  return Vec(Eigen::Map<const Vec>(t.data.data(), static_cast<Eigen::Index>(t.data.size())));
}
inline Norm read_norm(const TensorReader& r, const std::string& p) {
  return Norm{read_vec(r, p + ".weight"), read_vec(r, p + ".bias")};
}
inline Linear read_linear(const TensorReader& r, const std::string& p) {
  const NamedTensor& t = r.tensor(p + ".weight");
  Linear l;
  l.w = Eigen::Map<const Mat>(t.data.data(), t.shape[0], t.shape[1]);
  l.b = read_vec(r, p + ".bias");
  return l;
}

}  // namespace pacml::inference::eigen
