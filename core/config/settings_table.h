// Configuration keys declared once (issue 18): each file format pacml reads
// (cluster descriptions, device models, pacml.conf, experiments) lists its
// keys in one SettingsTable — name, type, range, unit, default and meaning —
// and the parser, the unknown-key check and the settings tables of the docs
// all come from it:
//
//   const SettingsTable& t = cluster_settings();
//   t.check_known(root, source);                      // typos → file:line
//   double bw = t.number(root, source, "server_bandwidth");  // range, unit
//   std::cout << t.markdown();                        // `pacml config keys`
//
// tests/docs/settings_tables_test.sh checks that the tables in doc/ are the
// ones `pacml config keys NAME --markdown` prints today.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <string>
#include <vector>

namespace pacml {

enum class SettingType {
  kText,     // one value, read as text (names, paths, shapes)
  kChoice,   // one of `choices`
  kInteger,  // digits only, in [min, max]
  kNumber,   // a finite number in [min, max] (outside: "a unit slip?")
  kBoolean,  // true/false, yes/no, on/off
  kList,     // a list of values; one value alone is a list of one
  kMapping,  // a nested mapping with its own rules
};

// One key, declared fluently:
//   SettingKey("servers", SettingType::kInteger, "how many servers")
//       .range(1, 65536).only_with("network: fabric")
struct SettingKey {
  SettingKey(std::string key_name, SettingType key_type, std::string meaning)
      : name(std::move(key_name)), type(key_type), doc(std::move(meaning)) {}
  SettingKey& defaults_to(std::string text) { return default_text = std::move(text), *this; }
  SettingKey& range(double lo, double hi, std::string in_unit = "") {
    min = lo, max = hi, unit = std::move(in_unit);
    return *this;
  }
  SettingKey& one_of(std::vector<std::string> values) { return choices = std::move(values), *this; }
  SettingKey& only_with(std::string case_name) { return only_when = std::move(case_name), *this; }

  std::string name;
  SettingType type;
  std::string doc;                         // one line, for people
  std::string default_text;                // as the docs show it; "" = required or none
  double min = -INFINITY, max = INFINITY;  // integers and numbers
  std::string unit;                        // "bytes/s", "seconds", ...
  std::vector<std::string> choices;        // kChoice
  std::string only_when;                   // "network: ramp": the key belongs to that case
};

class SettingsTable {
 public:
  // `file_kind` names an entry in messages: "cluster key", "op kind", ...
  SettingsTable(std::string file_kind, std::vector<SettingKey> keys);

  const std::string& file_kind() const { return file_kind_; }
  const std::vector<SettingKey>& keys() const { return keys_; }
  bool declares(const std::string& name) const { return find(name) != nullptr; }
  // The declaration of `name`; a key the code reads but never declared is a
  // programming error (std::logic_error), so the table cannot fall behind.
  const SettingKey& key(const std::string& name) const;

  // Every key of the mapping `map` must be declared, and given once. An unknown key is named
  // at its line with the known ones, so a typo is easy to fix. Keys declared
  // `only_when` some case (e.g. "network: ramp") are refused, saying so,
  // unless `active_case` is that case.
  void check_known(const YAML::Node& map, const std::string& source,
                   const std::string& active_case = "") const;

  // Typed reads of map[name] with the declaration's type, range and unit.
  // Each throws InputError("source:line", ...) naming the key; a missing key
  // is "missing 'NAME'" at the map's line.
  std::string text(const YAML::Node& map, const std::string& source, const std::string& name) const;
  std::string choice(const YAML::Node& map, const std::string& source,
                     const std::string& name) const;
  long integer(const YAML::Node& map, const std::string& source, const std::string& name) const;
  double number(const YAML::Node& map, const std::string& source, const std::string& name) const;
  bool boolean(const YAML::Node& map, const std::string& source, const std::string& name) const;
  std::vector<std::string> list(const YAML::Node& map, const std::string& source,
                                const std::string& name) const;
  // A non-empty list of numbers (integers), each in the declared range.
  std::vector<double> numbers(const YAML::Node& map, const std::string& source,
                              const std::string& name) const;
  std::vector<long> integers(const YAML::Node& map, const std::string& source,
                             const std::string& name) const;
  // The nested mapping map[name] (missing or not a mapping: an error).
  YAML::Node mapping(const YAML::Node& map, const std::string& source,
                     const std::string& name) const;

  // A Markdown table: | key | type | range / values | default | meaning |.
  std::string markdown() const;

 private:
  const SettingKey* find(const std::string& name) const;
  YAML::Node present(const YAML::Node& map, const std::string& source, const SettingKey& key) const;

  std::string file_kind_;
  std::vector<SettingKey> keys_;
};

// "integer", "number", ... and "1 – 64", "1e8 – 1e15 bytes/s", "`fabric`, `ramp`":
// the columns of the docs' settings tables.
const char* setting_type_name(SettingType type);
std::string setting_range_text(const SettingKey& key);

}  // namespace pacml
