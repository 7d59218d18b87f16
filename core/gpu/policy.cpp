#include "core/gpu/policy.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/gpu/learned_policy.h"
#include "core/util/error.h"
#include "core/util/numbers.h"

namespace pacml::gpu {

Policy Policy::parse(const std::string& text, const std::string& where,
                     const std::vector<std::string>& model_dirs) {
  if (text.rfind("pacml:", 0) == 0) return make_learned_policy(text, where, model_dirs);
  Policy p;
  p.name = text;
  if (text == "requested") return p;
  if (text == "min_feasible") return p.kind = Kind::kMinFeasible, p;
  if (text == "para_max") return p.kind = Kind::kParaMax, p;
  if (text == "random") return p.kind = Kind::kRandom, p;
  if (text.rfind("capped:", 0) == 0) {
    p.kind = Kind::kCapped;
    p.cap = parse_non_negative(text.substr(7), where, "cap in cluster-hours");
    return p;
  }
  if (text.rfind("fixed:", 0) == 0) {
    p.kind = Kind::kFixed;
    p.fixed = static_cast<int>(parse_integer(text.substr(6), 1, 1 << 20, where, "fixed GPU count"));
    return p;
  }
  throw InputError(
      where,
      "unknown GPU policy '" + text +
          "'; known: requested, min_feasible, para_max, fixed:K, random, capped:X, pacml:MODEL");
}

Policy Policy::of_chooser(std::string name, std::function<int(const DecisionInput&, Rng&)> fn) {
  Policy p;
  p.kind = Kind::kChooser;
  p.name = std::move(name);
  p.chooser = std::move(fn);
  return p;
}

namespace {

// k GPUs if they can start now and the job can run on them, else 0.
int exactly(int k, const DecisionInput& in) {
  return in.startable(k) && std::isfinite(in.seconds(k)) ? k : 0;
}

int fewest_meeting_deadline(const DecisionInput& in) {
  for (int k = 1; k <= in.free_gpus; ++k)
    if (in.now + in.seconds(k) <= in.deadline && in.startable(k)) return k;
  return 0;
}

int fastest_startable(const DecisionInput& in) {
  int best = 0;
  double best_seconds = INFINITY;
  for (int k = 1; k <= in.free_gpus; ++k) {
    const double s = in.seconds(k);
    if (s < best_seconds && in.startable(k)) best = k, best_seconds = s;
  }
  return best;
}

int cluster_size(const DecisionInput& in) {
  return std::max(1, in.cluster_gpus > 0 ? in.cluster_gpus : in.free_gpus);
}

int any_startable(const DecisionInput& in, Rng& rng) {
  std::vector<int> options;
  for (int k = 1; k <= in.free_gpus; ++k)
    if (exactly(k, in)) options.push_back(k);
  return options.empty() ? 0 : options[rng.below(options.size())];
}

}  // namespace

int choose_gpus(const Policy& policy, const DecisionInput& input, Rng& rng) {
  switch (policy.kind) {
    case Policy::Kind::kRequested:
      return exactly(input.requested, input);
    case Policy::Kind::kFixed:
      return exactly(policy.fixed, input);
    case Policy::Kind::kMinFeasible:
      return fewest_meeting_deadline(input);
    case Policy::Kind::kParaMax:
      return fastest_startable(input);
    case Policy::Kind::kRandom:
      return any_startable(input, rng);
    case Policy::Kind::kCapped:
      return capped_min_feasible(input, policy.cap);
    case Policy::Kind::kChooser:
      return policy.chooser ? policy.chooser(input, rng) : 0;
  }
  return 0;
}

int capped_min_feasible(const DecisionInput& input, double cap) {
  const int k = fewest_meeting_deadline(input);
  if (k == 0) return 0;
  return k * input.seconds(k) / (cluster_size(input) * 3600.0) <= cap ? k : kTurnAway;
}

}  // namespace pacml::gpu
