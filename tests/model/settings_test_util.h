// What the trainers' config tests write: every key of a table at its
// documented default (tests/model/model_test.cpp, gpu/gpu_model_test.cpp).
#pragma once

#include <string>

#include "core/config/settings_table.h"

namespace pacml {

// Every key of `table` whose default is one value (not words like "train's,
// seeds ..." or an abridged list, "[0.01 … 2, inf]") at that default,
// indented; a list's default is YAML already.
inline std::string documented_defaults(const SettingsTable& table, const std::string& indent) {
  std::string text;
  for (const SettingKey& k : table.keys()) {
    const std::string& v = k.default_text;
    if (v.empty() || v.find("…") != std::string::npos ||
        (v.find(' ') != std::string::npos && v[0] != '['))
      continue;
    text += indent + k.name + ": " + (v[0] == '[' ? v : "\"" + v + "\"") + "\n";
  }
  return text;
}

}  // namespace pacml
