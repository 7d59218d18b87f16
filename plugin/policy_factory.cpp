#include "plugin/policy_factory.h"

#include <cstring>
#include <map>
#include <mutex>

#include "core/inference/learned_policy.h"
#include "core/policy/baselines.h"
#include "core/util/error.h"

namespace pacml::plugin {
namespace {

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

std::map<std::string, PolicyMaker>& registry() {
  static std::map<std::string, PolicyMaker> makers;
  return makers;
}

constexpr const char* kLearnedPrefix = "pacml:";

}  // namespace

void register_plugin_policy(const std::string& prefix, PolicyMaker maker) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry()[prefix] = std::move(maker);
}

PolicyPtr make_plugin_policy(const std::string& name, const std::string& where) {
  if (name.rfind(kLearnedPrefix, 0) == 0 && name.size() == std::strlen(kLearnedPrefix))
    throw InputError(where, "policy 'pacml:' needs a weights file: pacml:PATH");
  PolicyMaker maker;
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    size_t best = 0;
    for (const auto& [prefix, m] : registry())
      if (name.rfind(prefix, 0) == 0 && prefix.size() >= best) best = prefix.size(), maker = m;
  }
  if (maker) return maker(name, where);
  // The learned policy (core/inference, no LibTorch): weights file checks
  // (missing, truncated, wrong format or topology) throw InputError naming it.
  if (name.rfind(kLearnedPrefix, 0) == 0) return inference::make_learned_policy(name, where);
  return make_baseline_policy(name, where);
}

void check_plugin_policy(const std::string& name, const std::string& where) {
  make_plugin_policy(name, where);
}

}  // namespace pacml::plugin
