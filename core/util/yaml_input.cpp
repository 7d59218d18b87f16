#include "core/util/yaml_input.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/util/numbers.h"

namespace pacml {

std::string yaml_where(const std::string& source, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return mark.line >= 0 ? file_line(source, mark.line + 1) : source;
}

namespace {

std::string mark_where(const YAML::Exception& e, const std::string& source) {
  return e.mark.line >= 0 ? file_line(source, e.mark.line + 1) : source;
}

// Range bounds as the CSV files write numbers.
std::string bound_text(double value) {
  return significant_number_text(value, 10);
}

}  // namespace

InputError yaml_error(const YAML::Exception& e, const std::string& source) {
  return InputError(mark_where(e, source), e.msg);
}

YAML::Node parse_yaml(std::istream& in, const std::string& source) {
  try {
    return YAML::Load(in);
  } catch (const YAML::Exception& e) {
    throw InputError(mark_where(e, source), "not valid YAML: " + e.msg);
  }
}

std::ifstream open_input_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  return in;
}

std::string yaml_scalar(const YAML::Node& node, const std::string& source,
                        const std::string& what) {
  if (!node || !node.IsScalar())
    throw InputError(yaml_where(source, node), what + " must be a single value");
  return node.Scalar();
}

double yaml_number(const YAML::Node& node, const std::string& source, const std::string& what) {
  return parse_finite_double(yaml_scalar(node, source, what), yaml_where(source, node), what);
}

double yaml_number(const YAML::Node& node, const std::string& source, const std::string& what,
                   double lo, double hi) {
  const double v = yaml_number(node, source, what);
  if (v < lo || v > hi)
    throw InputError(yaml_where(source, node),
                     what + " must be in [" + bound_text(lo) + ", " + bound_text(hi) + "]");
  return v;
}

double yaml_positive(const YAML::Node& node, const std::string& source, const std::string& what) {
  const double v = yaml_number(node, source, what);
  if (!(v > 0)) throw InputError(yaml_where(source, node), what + " must be positive");
  return v;
}

long yaml_integer(const YAML::Node& node, const std::string& source, const std::string& what,
                  long lo, long hi) {
  return parse_integer(yaml_scalar(node, source, what), lo, hi, yaml_where(source, node), what);
}

bool yaml_bool(const YAML::Node& node, const std::string& source, const std::string& what) {
  const std::string text = yaml_scalar(node, source, what);
  bool value = false;
  if (!YAML::convert<bool>::decode(node, value))
    throw InputError(yaml_where(source, node), what + " must be true or false, got '" + text + "'");
  return value;
}

std::vector<std::string> yaml_strings(const YAML::Node& node, const std::string& source,
                                      const std::string& what) {
  if (node.IsScalar()) return {node.Scalar()};
  if (!node.IsSequence()) throw InputError(yaml_where(source, node), what + " must be a list");
  std::vector<std::string> out;
  for (const YAML::Node& item : node) out.push_back(yaml_scalar(item, source, what + " entry"));
  return out;
}

void yaml_check_keys(const YAML::Node& map, const std::vector<std::string>& known,
                     const std::string& source, const std::string& what) {
  if (!map.IsMap()) throw InputError(yaml_where(source, map), what + " must be a mapping");
  for (const auto& kv : map) {
    const std::string key = yaml_scalar(kv.first, source, "a key in " + what);
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    throw InputError(yaml_where(source, kv.first),
                     "unknown key '" + key + "' in " + what + " (known: " + list + ")");
  }
}

}  // namespace pacml
