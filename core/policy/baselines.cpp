#include "core/policy/baselines.h"

#include <cmath>

#include "core/partition/split_counts.h"
#include "core/placement/action_mask.h"
#include "core/util/error.h"
#include "core/util/numbers.h"

namespace pacml {
namespace {

class ParaMax : public Policy {
 public:
  std::string name() const override { return "para_max"; }
  int choose(const DecisionContext& c) override { return valid_actions(c.mask).back(); }
};

class ParaMin : public Policy {
 public:
  std::string name() const override { return "para_min"; }
  int choose(const DecisionContext& c) override {
    const std::vector<int> valid = valid_actions(c.mask);
    const double needed = std::ceil(1.0 / c.beta);
    for (int a : valid)
      if (a >= needed) return a;
    return valid.back();
  }
};

class RandomPolicy : public Policy {
 public:
  std::string name() const override { return "random"; }
  int choose(const DecisionContext& c) override {
    std::vector<int> valid = valid_actions(c.mask);
    valid.erase(valid.begin());  // drop 0
    if (valid.empty()) return 0;
    return valid[c.rng.below(valid.size())];
  }
};

class Sequential : public Policy {
 public:
  std::string name() const override { return "sequential"; }
  int choose(const DecisionContext& c) override { return c.mask.size() > 1 && c.mask[1] ? 1 : 0; }
};

class Fixed : public Policy {
 public:
  explicit Fixed(int k) : k_(k) {}
  std::string name() const override { return "fixed:" + std::to_string(k_); }
  int choose(const DecisionContext& c) override {
    return k_ < static_cast<int>(c.mask.size()) && c.mask[k_] ? k_ : 0;
  }

 private:
  int k_;
};

class MinFeasible : public Policy {
 public:
  std::string name() const override { return "min_feasible"; }
  int choose(const DecisionContext& c) override {
    for (int a : valid_actions(c.mask)) {
      if (a == 0) continue;
      if (c.estimator.estimate(c.job, a, c.beta, c.cluster, c.cache).accepted()) return a;
    }
    return 0;
  }
};

}  // namespace

std::vector<std::string> baseline_policy_names() {
  return {"para_max", "para_min", "random", "sequential", "fixed:K", "min_feasible"};
}

PolicyPtr make_baseline_policy(const std::string& name, const std::string& where) {
  if (name == "para_max") return std::make_unique<ParaMax>();
  if (name == "para_min") return std::make_unique<ParaMin>();
  if (name == "random") return std::make_unique<RandomPolicy>();
  if (name == "sequential") return std::make_unique<Sequential>();
  if (name == "min_feasible") return std::make_unique<MinFeasible>();
  if (name.rfind("fixed:", 0) == 0) {
    const int k = static_cast<int>(parse_integer(name.substr(6), 0, kMaxAction, where, "fixed:K"));
    check_action(k, kMaxAction, where);
    return std::make_unique<Fixed>(k);
  }
  std::string known;
  for (const std::string& n : baseline_policy_names()) known += (known.empty() ? "" : ", ") + n;
  throw InputError(where, "unknown policy '" + name + "' (known: " + known + ", pacml:WEIGHTS)");
}

}  // namespace pacml
