#include "core/config/settings_table.h"

#include <map>
#include <sstream>
#include <stdexcept>

#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/yaml_input.h"

namespace pacml {

SettingsTable::SettingsTable(std::string file_kind, std::vector<SettingKey> keys)
    : file_kind_(std::move(file_kind)), keys_(std::move(keys)) {}

const SettingKey* SettingsTable::find(const std::string& name) const {
  for (const SettingKey& k : keys_)
    if (k.name == name) return &k;
  return nullptr;
}

const SettingKey& SettingsTable::key(const std::string& name) const {
  if (const SettingKey* k = find(name)) return *k;
  throw std::logic_error(file_kind_ + " '" + name + "' is read but not declared");
}

void SettingsTable::check_known(const YAML::Node& map, const std::string& source,
                                const std::string& active_case) const {
  if (!map.IsMap()) throw InputError(yaml_where(source, map), "expected a mapping of key: value");
  std::map<std::string, std::string> seen;  // key -> where it was first given
  for (const auto& kv : map) {
    const std::string name = kv.first.Scalar();
    // YAML readers keep the first of two equal keys; which one the writer
    // meant is anyone's guess, so a repeated key is an error.
    const auto [first, fresh] = seen.emplace(name, yaml_where(source, kv.first));
    if (!fresh)
      throw InputError(yaml_where(source, kv.first),
                       "'" + name + "' is given twice (first at " + first->second + ")");
    const SettingKey* k = find(name);
    const std::string where = yaml_where(source, kv.first);
    if (k && (k->only_when.empty() || k->only_when == active_case)) continue;
    if (k)
      throw InputError(where, "'" + name + "' applies only with " + k->only_when +
                                  (active_case.empty() ? "" : ", not with " + active_case));
    std::string known;
    for (const SettingKey& d : keys_)
      if (d.only_when.empty() || d.only_when == active_case)
        known += (known.empty() ? "" : ", ") + d.name;
    throw InputError(where, "unknown " + file_kind_ + " '" + name + "'; known: " + known);
  }
}

YAML::Node SettingsTable::present(const YAML::Node& map, const std::string& source,
                                  const SettingKey& k) const {
  const YAML::Node node = map[k.name];
  if (!node) throw InputError(yaml_where(source, map), "missing '" + k.name + "'");
  return node;
}

std::string SettingsTable::text(const YAML::Node& map, const std::string& source,
                                const std::string& name) const {
  return yaml_scalar(present(map, source, key(name)), source, name);
}

std::string SettingsTable::choice(const YAML::Node& map, const std::string& source,
                                  const std::string& name) const {
  const SettingKey& k = key(name);
  const YAML::Node node = present(map, source, k);
  const std::string value = yaml_scalar(node, source, name);
  std::string options;
  for (const std::string& c : k.choices) {
    if (c == value) return value;
    options += (options.empty() ? "'" : ", '") + c + "'";
  }
  throw InputError(yaml_where(source, node),
                   name + " must be one of " + options + ", got '" + value + "'");
}

long SettingsTable::integer(const YAML::Node& map, const std::string& source,
                            const std::string& name) const {
  const SettingKey& k = key(name);
  const double lo = std::isfinite(k.min) ? k.min : -1e18, hi = std::isfinite(k.max) ? k.max : 1e18;
  return yaml_integer(present(map, source, k), source, name, static_cast<long>(lo),
                      static_cast<long>(hi));
}

double SettingsTable::number(const YAML::Node& map, const std::string& source,
                             const std::string& name) const {
  const SettingKey& k = key(name);
  const YAML::Node node = present(map, source, k);
  const double v = yaml_number(node, source, name);
  if (v < 0 && k.min >= 0)
    throw InputError(yaml_where(source, node),
                     name + " must not be negative: " + yaml_scalar(node, source, name));
  if (v < k.min || v > k.max)
    throw InputError(yaml_where(source, node),
                     name + " = " + exact_number_text(v) + " is outside the plausible range [" +
                         exact_number_text(k.min) + ", " + exact_number_text(k.max) + "] " +
                         k.unit + (k.unit.empty() ? "" : " (a unit slip?)"));
  return v;
}

bool SettingsTable::boolean(const YAML::Node& map, const std::string& source,
                            const std::string& name) const {
  return yaml_bool(present(map, source, key(name)), source, name);
}

std::vector<std::string> SettingsTable::list(const YAML::Node& map, const std::string& source,
                                             const std::string& name) const {
  return yaml_strings(present(map, source, key(name)), source, name);
}

namespace {

YAML::Node non_empty_list(const YAML::Node& node, const std::string& source,
                          const std::string& name) {
  if (!node.IsSequence() || node.size() == 0)
    throw InputError(yaml_where(source, node), name + " must be a non-empty list");
  return node;
}

}  // namespace

std::vector<double> SettingsTable::numbers(const YAML::Node& map, const std::string& source,
                                           const std::string& name) const {
  const SettingKey& k = key(name);
  std::vector<double> out;
  for (const YAML::Node& item : non_empty_list(present(map, source, k), source, name))
    out.push_back(yaml_number(item, source, name + " entry", k.min, k.max));
  return out;
}

std::vector<long> SettingsTable::integers(const YAML::Node& map, const std::string& source,
                                          const std::string& name) const {
  const SettingKey& k = key(name);
  const double lo = std::isfinite(k.min) ? k.min : -1e18, hi = std::isfinite(k.max) ? k.max : 1e18;
  std::vector<long> out;
  for (const YAML::Node& item : non_empty_list(present(map, source, k), source, name))
    out.push_back(
        yaml_integer(item, source, name + " entry", static_cast<long>(lo), static_cast<long>(hi)));
  return out;
}

YAML::Node SettingsTable::mapping(const YAML::Node& map, const std::string& source,
                                  const std::string& name) const {
  const YAML::Node node = present(map, source, key(name));
  if (!node.IsMap()) throw InputError(yaml_where(source, node), "'" + name + "' must be a mapping");
  return node;
}

namespace {}  // namespace

const char* setting_type_name(SettingType type) {
  switch (type) {
    case SettingType::kText:
      return "text";
    case SettingType::kChoice:
      return "choice";
    case SettingType::kInteger:
      return "integer";
    case SettingType::kNumber:
      return "number";
    case SettingType::kBoolean:
      return "boolean";
    case SettingType::kList:
      return "list";
    case SettingType::kMapping:
      return "mapping";
  }
  return "?";
}

std::string setting_range_text(const SettingKey& k) {
  if (k.type == SettingType::kChoice) {
    std::string out;
    for (const std::string& c : k.choices) out += (out.empty() ? "`" : ", `") + c + "`";
    return out;
  }
  const bool scalar = k.type == SettingType::kInteger || k.type == SettingType::kNumber;
  const bool ranged = std::isfinite(k.min) || std::isfinite(k.max);
  // A list or mapping of numbers shows the range of each value.
  if (!scalar && !ranged) return k.unit;
  const std::string lo = std::isfinite(k.min) ? exact_number_text(k.min) : "−∞";
  const std::string hi = std::isfinite(k.max) ? exact_number_text(k.max) : "∞";
  return (scalar ? "" : "each ") + lo + " – " + hi + (k.unit.empty() ? "" : " " + k.unit);
}

std::string SettingsTable::markdown() const {
  std::ostringstream out;
  out << "| key | type | range / values | default | meaning |\n|---|---|---|---|---|\n";
  for (const SettingKey& k : keys_) {
    const std::string when = k.only_when.empty() ? "" : " (" + k.only_when + " only)";
    out << "| `" << k.name << "` | " << setting_type_name(k.type) << " | " << setting_range_text(k)
        << " | " << (k.default_text.empty() ? "" : "`" + k.default_text + "`") << " | " << k.doc
        << when << " |\n";
  }
  return out.str();
}

}  // namespace pacml
