#include "sim/engine/policy_factory.h"

#include "sim/workload/paths.h"

#include "core/util/error.h"
#include "core/util/numbers.h"

namespace pacml::sim {

PolicyPtr make_policy(const std::string& name, const std::string& where) {
  return pacml::make_policy(name, where, model_search_dirs());
}

void check_policy_name(const std::string& name, const std::string& where) {
  pacml::check_policy_name(name, where, model_search_dirs());
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
