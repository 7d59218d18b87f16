// Distributions of β, the JCT requirement fraction (doc/MODEL.md §1.3).
//
//   A            uniform over {0.10, 0.11, …, 1.00}
//   B, C, D      skew-normal (α = +5, 0, −5) rescaled the reference way: at
//                episode start 50,000 draws of SkewNormal(α, 1, 1) are min/max
//                normalised to [0, 1], raised to ≥ 0.10 and histogrammed into
//                1000 bins; a job draws a bin with probability count/50,000
//                and gets the bin's right edge rounded to 2 decimals.
//   uniform(lo,hi)  uniform in [lo, hi], rounded to 2 decimals
//   fixed(v)     always v
//
// Everything uses pacml::Rng, so a seed gives the same β on every platform.
#pragma once

#include <string>
#include <vector>

#include "core/policy/policy.h"

namespace pacml::sim {

struct BetaSpec {
  enum class Kind { kA, kB, kC, kD, kUniform, kFixed };
  Kind kind = Kind::kA;
  double lo = 0.1, hi = 1.0;  // uniform bounds, or the fixed value in lo

  // "A", "B", "C", "D", "uniform(0.2,0.8)", "fixed(0.5)" or "0.5".
  // Throws InputError(where, ...) otherwise.
  static BetaSpec parse(const std::string& text, const std::string& where = "beta");
  // The canonical name: "A", "uniform(0.2,0.8)", "fixed(0.5)".
  std::string label() const;
};

// Standard normal draws by the Box–Muller transform (both values of a pair used).
class NormalSampler {
 public:
  double next(Rng& rng);

 private:
  bool has_spare_ = false;
  double spare_ = 0;
};

// One draw of SkewNormal(alpha, loc, scale): δ = α/√(1+α²), z = δ|u0| + √(1−δ²)·v.
double sample_skew_normal(double alpha, double loc, double scale, NormalSampler& normal, Rng& rng);

// A β distribution prepared for one episode (B/C/D draw their histogram here).
class BetaSampler {
 public:
  BetaSampler(const BetaSpec& spec, Rng& rng);
  double sample(Rng& rng) const;

  // The discrete support and its weights (empty for uniform/fixed).
  const std::vector<double>& support() const { return support_; }
  const std::vector<long>& weights() const { return cumulative_; }  // cumulative counts
  // Mean and standard deviation of the discrete distribution (A–D).
  double mean() const;
  double stddev() const;

 private:
  BetaSpec spec_;
  std::vector<double> support_;
  std::vector<long> cumulative_;
};

constexpr int kSkewSamples = 50000;
constexpr int kSkewBins = 1000;

}  // namespace pacml::sim
