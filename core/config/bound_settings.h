// Settings bound to the members of a struct (issue 30, item 4; after ns-3's
// attributes): each key is declared once, with the member it sets. Its
// default in the docs is that member's value in a default-built struct, and
// reading a file is one loop over the table:
//
//   const BoundSettings<PluginConfig>& keys = plugin_config_keys();
//   keys.table().check_known(root, source);   // typos → file:line
//   keys.read(root, source, cfg);             // every key given, typed, in order
//
// The ways to bind a key:
//   bind(key, &S::m, d)              typed read (number, integer, boolean,
//                                    text, choice, lists of these); default d.m
//   bind(key, nested(&S::a, &A::m), d)   a member of a member
//   bind(key, &S::m, d, read_value)  the format's own read (and messages)
//   bind_with<S>(key, reader)        a structured value (a topology, a node
//                                    list, a duration): its own reader, its
//                                    default said in words
//   required(binding)                must be given; documents no default
//   no_default(binding)              the member starts at "not set" (0, -1)
#pragma once

#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/config/settings_table.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/yaml_input.h"

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
    bool required = false;  // absent: "missing 'KEY'" at the map's line
  };

  BoundSettings(std::string file_kind, std::vector<Binding> bindings)
      : table_(std::move(file_kind), keys_of(bindings)) {
    for (Binding& b : bindings) {
      readers_.push_back(std::move(b.read));
      required_.push_back(b.required);
    }
  }

  const SettingsTable& table() const { return table_; }

  // Each declared key present in `map`, read into `out` in the table's order
  // (so a key may depend on one declared before it: nodes on topology); a
  // required key that is absent is an InputError at the map's line.
  void read(const YAML::Node& map, const std::string& source, S& out) const {
    for (std::size_t i = 0; i < readers_.size(); ++i) {
      const std::string& name = table_.keys()[i].name;
      if (map[name])
        readers_[i](table_, map, source, out);
      else if (required_[i])
        throw InputError(yaml_where(source, map), "missing '" + name + "'");
    }
  }

 private:
  static std::vector<SettingKey> keys_of(const std::vector<Binding>& bindings) {
    std::vector<SettingKey> keys;
    for (const Binding& b : bindings) keys.push_back(b.key);
    return keys;
  }

  SettingsTable table_;
  std::vector<Reader> readers_;
  std::vector<bool> required_;
};

// The default text of a member's value, as the docs show it.
inline std::string default_text_of(double value) {
  return engineering_number_text(value);
}
template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
std::string default_text_of(I value) {
  return std::to_string(value);
}
inline std::string default_text_of(bool value) {
  return value ? "true" : "false";
}
inline std::string default_text_of(const std::string& value) {
  return value;
}
// A list as YAML's flow sequence: "[immediate, queue]".
template <class T>
std::string default_text_of(const std::vector<T>& values) {
  std::string text;
  for (const T& v : values) text += (text.empty() ? "" : ", ") + default_text_of(v);
  return "[" + text + "]";
}

// A member of a member (`&Spec::fitted`, `&Fitted::load`), so that a key of a
// nested struct is bound like a direct one: nested(&S::outer, &M::inner), or
// deeper, nested(nested(&S::a, &A::b), &B::c).
template <class Outer, class M, class T>
struct NestedMember {
  Outer outer;  // `M S::*`, or a NestedMember reaching an M
  T M::*inner;
};
template <class Outer, class M, class T>
NestedMember<Outer, M, T> nested(Outer outer, T M::*inner) {
  return {outer, inner};
}

template <class S, class T>
T& member_of(S& s, T S::*member) {
  return s.*member;
}
template <class S, class T>
const T& member_of(const S& s, T S::*member) {
  return s.*member;
}
template <class S, class Outer, class M, class T>
T& member_of(S& s, const NestedMember<Outer, M, T>& member) {
  return member_of(s, member.outer).*member.inner;
}
template <class S, class Outer, class M, class T>
const T& member_of(const S& s, const NestedMember<Outer, M, T>& member) {
  return member_of(s, member.outer).*member.inner;
}

template <class T>
struct is_integer_list : std::false_type {};
template <class I>
struct is_integer_list<std::vector<I>>
    : std::bool_constant<std::is_integral_v<I> && !std::is_same_v<I, bool>> {};

// A key bound to `member` (`&S::m` or nested(...)): read with the declared
// type (kNumber, kInteger, kBoolean, kChoice, kText or kList of text,
// numbers or integers), its default taken from the member's value in
// `defaults`.
template <class S, class Member>
typename BoundSettings<S>::Binding bind(SettingKey key, Member member, const S& defaults) {
  using T = std::decay_t<decltype(member_of(defaults, member))>;
  key.defaults_to(default_text_of(member_of(defaults, member)));
  const std::string name = key.name;
  const SettingType type = key.type;
  return {std::move(key), [member, name, type](const SettingsTable& keys, const YAML::Node& map,
                                               const std::string& source, S& out) {
            T& value = member_of(out, member);
            if constexpr (std::is_same_v<T, double>) {
              value = keys.number(map, source, name);
            } else if constexpr (std::is_same_v<T, bool>) {
              value = keys.boolean(map, source, name);
            } else if constexpr (std::is_integral_v<T>) {
              value = static_cast<T>(keys.integer(map, source, name));
            } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
              value = keys.list(map, source, name);
            } else if constexpr (std::is_same_v<T, std::vector<double>>) {
              value = keys.numbers(map, source, name);
            } else if constexpr (is_integer_list<T>::value) {
              value.clear();
              for (long v : keys.integers(map, source, name))
                value.push_back(static_cast<typename T::value_type>(v));
            } else {
              static_assert(std::is_same_v<T, std::string>, "bind: an unsupported member type");
              value = type == SettingType::kChoice ? keys.choice(map, source, name)
                                                   : keys.text(map, source, name);
            }
          }};
}

// A key bound to `member` and read by `read_value(node, source)`, which
// returns the member's value: for a format whose own checks and messages
// ("workload.load must be ...") predate its table. The default is still the
// member's value in `defaults`.
template <class S, class Member, class ReadValue>
typename BoundSettings<S>::Binding bind(SettingKey key, Member member, const S& defaults,
                                        ReadValue read_value) {
  key.defaults_to(default_text_of(member_of(defaults, member)));
  const std::string name = key.name;
  return {std::move(key), [member, name, read_value](const SettingsTable&, const YAML::Node& map,
                                                     const std::string& source, S& out) {
            member_of(out, member) = read_value(map[name], source);
          }};
}

// A key with its own reader; its default (if any) is in the declaration.
template <class S>
typename BoundSettings<S>::Binding bind_with(SettingKey key,
                                             typename BoundSettings<S>::Reader read) {
  return {std::move(key), std::move(read)};
}

// A key the file must give: it documents no default, and read() refuses a
// map without it ("missing 'KEY'").
template <class Binding>
Binding required(Binding binding) {
  binding.key.default_text.clear();
  binding.required = true;
  return binding;
}

// A key whose member starts at a value meaning "not set" (0: the
// experiment's, -1: never), which a file cannot write: it documents no
// default.
template <class Binding>
Binding no_default(Binding binding) {
  binding.key.default_text.clear();
  return binding;
}

}  // namespace pacml
