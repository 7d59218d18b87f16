// Settings bound to the members of a struct (issue 30, item 4; after ns-3's
// attributes): each key is declared once, with the member it sets. Its
// default in the docs is that member's value in a default-built struct, and
// reading a file is one loop over the table:
//
//   const BoundSettings<PluginConfig>& keys = plugin_config_keys();
//   keys.table().check_known(root, source);   // typos → file:line
//   keys.read(root, source, cfg);             // every key given, typed, in order
//
// A key whose member is not the text of its value (a topology, a node list,
// a duration) is bound with its own reader and says its default in words.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/config/settings_table.h"
#include "core/util/numbers.h"

namespace pacml {

template <class S>
class BoundSettings {
 public:
  // Reads map[key] (present) into `out`; `keys` gives the declaration's typed reads.
  using Reader = std::function<void(const SettingsTable& keys, const YAML::Node& map,
                                    const std::string& source, S& out)>;
  struct Binding {
    SettingKey key;
    Reader read;
  };

  BoundSettings(std::string file_kind, std::vector<Binding> bindings)
      : table_(std::move(file_kind), keys_of(bindings)) {
    for (Binding& b : bindings) readers_.push_back(std::move(b.read));
  }

  const SettingsTable& table() const { return table_; }

  // Each declared key present in `map`, read into `out` in the table's order
  // (so a key may depend on one declared before it: nodes on topology).
  void read(const YAML::Node& map, const std::string& source, S& out) const {
    for (std::size_t i = 0; i < readers_.size(); ++i)
      if (map[table_.keys()[i].name]) readers_[i](table_, map, source, out);
  }

 private:
  static std::vector<SettingKey> keys_of(const std::vector<Binding>& bindings) {
    std::vector<SettingKey> keys;
    for (const Binding& b : bindings) keys.push_back(b.key);
    return keys;
  }

  SettingsTable table_;
  std::vector<Reader> readers_;
};

// The default text of a member's value, as the docs show it.
inline std::string default_text_of(double value) {
  return exact_number_text(value);
}
inline std::string default_text_of(long value) {
  return std::to_string(value);
}
inline std::string default_text_of(bool value) {
  return value ? "true" : "false";
}
inline std::string default_text_of(const std::string& value) {
  return value;
}

// A key bound to `member`: read with the declared type (kNumber, kInteger,
// kBoolean, kChoice or kText), its default taken from `defaults.*member`.
template <class S, class T>
typename BoundSettings<S>::Binding bind(SettingKey key, T S::*member, const S& defaults) {
  key.defaults_to(default_text_of(defaults.*member));
  const std::string name = key.name;
  const SettingType type = key.type;
  return {std::move(key), [member, name, type](const SettingsTable& keys, const YAML::Node& map,
                                               const std::string& source, S& out) {
            if constexpr (std::is_same_v<T, double>) {
              out.*member = keys.number(map, source, name);
            } else if constexpr (std::is_same_v<T, long>) {
              out.*member = keys.integer(map, source, name);
            } else if constexpr (std::is_same_v<T, bool>) {
              out.*member = keys.boolean(map, source, name);
            } else {
              static_assert(std::is_same_v<T, std::string>, "bind: an unsupported member type");
              out.*member = type == SettingType::kChoice ? keys.choice(map, source, name)
                                                         : keys.text(map, source, name);
            }
          }};
}

// A key with its own reader; its default (if any) is in the declaration.
template <class S>
typename BoundSettings<S>::Binding bind_with(SettingKey key,
                                             typename BoundSettings<S>::Reader read) {
  return {std::move(key), std::move(read)};
}

}  // namespace pacml
