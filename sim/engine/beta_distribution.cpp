#include "sim/engine/beta_distribution.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/util/error.h"
#include "core/util/numbers.h"

namespace pacml::sim {
namespace {

double round2(double x) {
  return std::round(x * 100.0) / 100.0;
}

}  // namespace

BetaSpec BetaSpec::parse(const std::string& raw, const std::string& where) {
  const std::string text(trim(raw));
  BetaSpec spec;
  if (text == "A" || text == "a") return spec.kind = Kind::kA, spec;
  if (text == "B" || text == "b") return spec.kind = Kind::kB, spec;
  if (text == "C" || text == "c") return spec.kind = Kind::kC, spec;
  if (text == "D" || text == "d") return spec.kind = Kind::kD, spec;
  auto args_of = [&](const std::string& prefix) -> std::string {
    if (text.rfind(prefix + "(", 0) != 0 || text.back() != ')') return "";
    return text.substr(prefix.size() + 1, text.size() - prefix.size() - 2);
  };
  if (const std::string args = args_of("uniform"); !args.empty()) {
    const size_t comma = args.find(',');
    if (comma == std::string::npos)
      throw InputError(where, "uniform needs two bounds: uniform(lo,hi), got '" + text + "'");
    spec.kind = Kind::kUniform;
    spec.lo = parse_finite_double(trim(args.substr(0, comma)), where, "uniform lower bound");
    spec.hi = parse_finite_double(trim(args.substr(comma + 1)), where, "uniform upper bound");
    if (!(spec.lo > 0 && spec.lo <= spec.hi && spec.hi <= 1))
      throw InputError(where, "uniform(lo,hi) needs 0 < lo <= hi <= 1, got '" + text + "'");
    return spec;
  }
  std::string value = args_of("fixed");
  if (value.empty()) value = text;
  double v;
  try {
    v = parse_finite_double(value, where, "β");
  } catch (const InputError&) {
    throw InputError(where, "unknown β distribution '" + text +
                                "' (use A, B, C, D, uniform(lo,hi), fixed(v) or a number)");
  }
  if (!(v > 0 && v <= 1))
    throw InputError(where, "a fixed β must be in (0, 1], got '" + text + "'");
  spec.kind = Kind::kFixed;
  spec.lo = spec.hi = v;
  return spec;
}

std::string BetaSpec::label() const {
  switch (kind) {
    case Kind::kA:
      return "A";
    case Kind::kB:
      return "B";
    case Kind::kC:
      return "C";
    case Kind::kD:
      return "D";
    case Kind::kUniform:
      return "uniform(" + significant_number_text(lo) + "," + significant_number_text(hi) + ")";
    case Kind::kFixed:
      return "fixed(" + significant_number_text(lo) + ")";
  }
  return "?";
}

double NormalSampler::next(Rng& rng) {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  const double u1 = 1.0 - rng.uniform();  // (0, 1]
  const double u2 = rng.uniform();
  const double radius = std::sqrt(-2.0 * std::log(u1));
  const double angle = 2.0 * M_PI * u2;
  spare_ = radius * std::sin(angle);
  has_spare_ = true;
  return radius * std::cos(angle);
}

double sample_skew_normal(double alpha, double loc, double scale, NormalSampler& normal, Rng& rng) {
  const double delta = alpha / std::sqrt(1.0 + alpha * alpha);
  const double u0 = normal.next(rng);
  const double v = normal.next(rng);
  const double z = delta * std::fabs(u0) + std::sqrt(1.0 - delta * delta) * v;
  return loc + scale * z;
}

BetaSampler::BetaSampler(const BetaSpec& spec, Rng& rng) : spec_(spec) {
  if (spec.kind == BetaSpec::Kind::kA) {
    long total = 0;
    for (int i = 10; i <= 100; ++i) {
      support_.push_back(i / 100.0);
      cumulative_.push_back(++total);
    }
    return;
  }
  if (spec.kind != BetaSpec::Kind::kB && spec.kind != BetaSpec::Kind::kC &&
      spec.kind != BetaSpec::Kind::kD)
    return;
  const double alpha = spec.kind == BetaSpec::Kind::kB   ? 5.0
                       : spec.kind == BetaSpec::Kind::kC ? 0.0
                                                         : -5.0;
  NormalSampler normal;
  std::vector<double> x(kSkewSamples);
  for (double& value : x) value = sample_skew_normal(alpha, 1.0, 1.0, normal, rng);
  const double lo = *std::min_element(x.begin(), x.end());
  for (double& value : x) value -= lo;
  const double hi = *std::max_element(x.begin(), x.end());
  for (double& value : x) value = std::max(value / hi, 0.1);
  // numpy.histogram(x, bins=1000): equal bins over [min, max], the last one closed.
  const double first = *std::min_element(x.begin(), x.end());
  const double last = *std::max_element(x.begin(), x.end());
  const double width = (last - first) / kSkewBins;
  std::vector<long> counts(kSkewBins, 0);
  for (double value : x) {
    int bin = width > 0 ? static_cast<int>((value - first) / width) : kSkewBins - 1;
    counts[std::clamp(bin, 0, kSkewBins - 1)]++;
  }
  long total = 0;
  for (int i = 0; i < kSkewBins; ++i) {
    if (counts[i] == 0) continue;  // zero weight: never drawn
    support_.push_back(round2(first + (i + 1) * width));
    total += counts[i];
    cumulative_.push_back(total);
  }
}

double BetaSampler::sample(Rng& rng) const {
  switch (spec_.kind) {
    case BetaSpec::Kind::kFixed:
      return spec_.lo;
    case BetaSpec::Kind::kUniform: {
      // Two decimals like every other β, unless rounding would leave [lo, hi].
      const double v = spec_.lo + (spec_.hi - spec_.lo) * rng.uniform();
      const double rounded = round2(v);
      return rounded >= spec_.lo && rounded <= spec_.hi && rounded > 0 ? rounded : v;
    }
    default:
      break;
  }
  const long r = static_cast<long>(rng.below(static_cast<std::uint64_t>(cumulative_.back())));
  const size_t index =
      std::upper_bound(cumulative_.begin(), cumulative_.end(), r) - cumulative_.begin();
  return support_[index];
}

double BetaSampler::mean() const {
  if (support_.empty())
    return spec_.kind == BetaSpec::Kind::kFixed ? spec_.lo : (spec_.lo + spec_.hi) / 2;
  double sum = 0;
  long previous = 0;
  for (size_t i = 0; i < support_.size(); ++i) {
    sum += support_[i] * (cumulative_[i] - previous);
    previous = cumulative_[i];
  }
  return sum / cumulative_.back();
}

double BetaSampler::stddev() const {
  if (support_.empty())
    return spec_.kind == BetaSpec::Kind::kFixed ? 0 : (spec_.hi - spec_.lo) / std::sqrt(12.0);
  const double m = mean();
  double sum = 0;
  long previous = 0;
  for (size_t i = 0; i < support_.size(); ++i) {
    sum += (support_[i] - m) * (support_[i] - m) * (cumulative_[i] - previous);
    previous = cumulative_[i];
  }
  return std::sqrt(sum / cumulative_.back());
}

}  // namespace pacml::sim
