// Reading YAML that people write (graphs, device models, experiments,
// pacml.conf) with errors that name "file:line" instead of yaml-cpp's bare
// exceptions. Every YAML reader in pacml goes through these helpers.
#pragma once

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <string>

#include "core/util/error.h"

namespace pacml {

// "source:line" of a node (yaml-cpp lines are 0-based), or just source.
std::string yaml_where(const std::string& source, const YAML::Node& node);

// Parses a whole document; syntax errors become InputError("source:line").
YAML::Node parse_yaml(std::istream& in, const std::string& source);

// Opens `path` for reading; throws InputError naming the path and the reason.
std::ifstream open_input_file(const std::string& path);

// Runs convert(root) and turns any yaml-cpp exception it throws (a bad
// conversion, a missing key) into InputError("source:line").
template <class Convert>
auto convert_yaml(const YAML::Node& root, const std::string& source, Convert&& convert) {
  try {
    return convert(root);
  } catch (const YAML::Exception& e) {
    throw InputError(e.mark.line >= 0 ? file_line(source, e.mark.line + 1) : source, e.msg);
  }
}

}  // namespace pacml
