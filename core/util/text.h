// Small string helpers shared by the readers (file extensions, name
// prefixes, delimited fields).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pacml {

inline bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

inline bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// The fields of one delimited line, empty ones kept ("a,,b" → a, "", b): a
// CSV row without quoting, a sacct -P line.
inline std::vector<std::string> split_fields(std::string_view line, char sep) {
  std::vector<std::string> out;
  for (;;) {
    const size_t at = line.find(sep);
    out.emplace_back(line.substr(0, at));
    if (at == std::string_view::npos) return out;
    line.remove_prefix(at + 1);
  }
}

}  // namespace pacml
