#include "sim/engine/policy_factory.h"

#include <map>
#include <mutex>

#include "core/inference/learned_policy.h"
#include "core/policy/baselines.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "sim/workload/paths.h"

namespace pacml::sim {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, PolicyMaker> makers;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_policy_maker(const std::string& prefix, PolicyMaker maker) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.makers[prefix] = std::move(maker);
}

PolicyPtr make_policy(const std::string& name, const std::string& where) {
  PolicyMaker maker;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    size_t best = 0;
    for (const auto& [prefix, m] : r.makers)
      if (name.rfind(prefix, 0) == 0 && prefix.size() >= best) best = prefix.size(), maker = m;
  }
  if (maker) return maker(name, where);
  // The learned policy: "pacml:PATH" or "pacml:NAME" (a shipped weights file
  // beside the running program, see model_search_dirs).
  if (name.rfind("pacml:", 0) == 0)
    return inference::make_learned_policy(name, where, model_search_dirs());
  return make_baseline_policy(name, where);
}

void check_policy_name(const std::string& name, const std::string& where) {
  make_policy(name, where);
}

std::vector<std::string> split_policy_list(const std::string& text, const std::string& where) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string item(
        trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (item.empty()) throw InputError(where, "empty policy name in '" + text + "'");
    out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace pacml::sim
