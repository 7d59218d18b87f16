// Reading YAML that people write (graphs, device models, experiments,
// pacml.conf) with errors that name "file:line" instead of yaml-cpp's bare
// exceptions. Every YAML reader in pacml goes through these helpers.
#pragma once

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <string>
#include <vector>

#include "core/util/error.h"

namespace pacml {

// "source:line" of a node (yaml-cpp lines are 0-based), or just source.
std::string yaml_where(const std::string& source, const YAML::Node& node);

// The deepest nesting (mappings and sequences inside each other) a YAML
// document pacml reads may have. pacml's own files nest at most 4 levels
// (an experiment's workload.mix entries); yaml-cpp's parser recurses per
// level (0.7 stops at ~500 levels, using ~250 KB of stack; 0.6 not at all:
// 5,000 levels overflowed slurmctld's 1 MiB thread stack, issue 32), and so
// does any walk of the tree.
constexpr int kMaxYamlDepth = 64;
// The words parse_yaml's error for a deeper document starts with (readers
// that word their own errors keep this one).
constexpr const char* kYamlTooDeep = "nested more than";

// Parses a whole document; syntax errors become InputError("source:line"),
// and so does a document nested deeper than kMaxYamlDepth or one whose
// aliases repeat more nodes than its text holds (the "billion laughs").
YAML::Node parse_yaml(std::istream& in, const std::string& source);

// Opens `path` for reading; throws InputError naming the path and the reason.
std::ifstream open_input_file(const std::string& path);
// The whole text of `path`, opened as open_input_file does.
std::string read_input_file(const std::string& path);

// A yaml-cpp exception (a bad conversion, a missing key) as InputError("source:line").
InputError yaml_error(const YAML::Exception& e, const std::string& source);

// Runs convert(root) and turns any yaml-cpp exception it throws into yaml_error.
template <class Convert>
auto convert_yaml(const YAML::Node& root, const std::string& source, Convert&& convert) {
  try {
    return convert(root);
  } catch (const YAML::Exception& e) {
    throw yaml_error(e, source);
  }
}

// Values inside a document. Each error names "source:line" and `what` (the
// key's dotted path, e.g. "workload.interarrival").

// A scalar's text; a missing node, a list or a mapping is "WHAT must be a
// single value".
std::string yaml_scalar(const YAML::Node& node, const std::string& source, const std::string& what);

// A finite number (parse_finite_double's rules), optionally within [lo, hi].
double yaml_number(const YAML::Node& node, const std::string& source, const std::string& what);
double yaml_number(const YAML::Node& node, const std::string& source, const std::string& what,
                   double lo, double hi);

// A finite number > 0.
double yaml_positive(const YAML::Node& node, const std::string& source, const std::string& what);

// An integer in [lo, hi] (parse_integer's rules: digits only).
long yaml_integer(const YAML::Node& node, const std::string& source, const std::string& what,
                  long lo, long hi);

// A boolean as YAML writes it (true/false, yes/no, on/off, y/n, any case).
bool yaml_bool(const YAML::Node& node, const std::string& source, const std::string& what);

// A list of single values; one value alone is a list of one.
std::vector<std::string> yaml_strings(const YAML::Node& node, const std::string& source,
                                      const std::string& what);

// `map` must be a mapping whose keys are all in `known`; an unknown key is
// named with the known ones (in the order given), so a typo is easy to fix.
void yaml_check_keys(const YAML::Node& map, const std::vector<std::string>& known,
                     const std::string& source, const std::string& what);

}  // namespace pacml
