#include "sim/engine/policy_factory.h"

#include "core/util/error.h"
#include "core/util/numbers.h"

namespace pacml::sim {

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
