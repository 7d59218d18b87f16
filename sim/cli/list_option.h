// Comma-separated option values ("--policies a,b,c"): the items, empty ones
// dropped.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace pacml::cli {

inline std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace pacml::cli
