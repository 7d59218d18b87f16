#include "core/policy/policy_factory.h"

#include <map>
#include <mutex>

#include "core/inference/learned_policy.h"
#include "core/policy/baselines.h"
#include "core/util/error.h"

namespace pacml {
namespace {

constexpr const char* kLearnedPrefix = "pacml:";

struct Registry {
  std::mutex mutex;
  std::map<std::string, PolicyMaker> makers;
};

Registry& registry() {
  static Registry r;
  return r;
}

PolicyMaker registered_maker(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  PolicyMaker maker;
  size_t best = 0;
  for (const auto& [prefix, m] : r.makers)
    if (name.rfind(prefix, 0) == 0 && prefix.size() >= best) best = prefix.size(), maker = m;
  return maker;
}

}  // namespace

void register_policy_maker(const std::string& prefix, PolicyMaker maker) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.makers[prefix] = std::move(maker);
}

PolicyPtr make_policy(const std::string& name, const std::string& where,
                      const std::vector<std::string>& model_dirs) {
  if (name == kLearnedPrefix)
    throw InputError(where, "policy 'pacml:' needs a weights file: pacml:PATH or pacml:NAME");
  if (PolicyMaker maker = registered_maker(name)) return maker(name, where);
  // Weights file checks (missing, truncated, wrong format or topology) throw
  // InputError naming the file.
  if (name.rfind(kLearnedPrefix, 0) == 0)
    return inference::make_learned_policy(name, where, model_dirs);
  return make_baseline_policy(name, where);
}

void check_policy_name(const std::string& name, const std::string& where,
                       const std::vector<std::string>& model_dirs) {
  make_policy(name, where, model_dirs);
}

}  // namespace pacml
