#include "core/util/yaml_input.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <sstream>

#include <yaml-cpp/depthguard.h>  // YAML::DeepRecursion: yaml-cpp >= 0.7

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

namespace {

std::string too_deep() {
  return std::string(kYamlTooDeep) + " " + std::to_string(kMaxYamlDepth) + " levels deep";
}

// Checks the tree's depth (the root is level 1; at most kMaxYamlDepth frames) and
// its size: at most `budget` nodes visited, so that aliases cannot make
// later walks repeat a node exponentially often.
void check_tree(const YAML::Node& node, int depth, long& budget, const std::string& source) {
  if (depth >= kMaxYamlDepth) throw InputError(yaml_where(source, node), too_deep());
  if (--budget < 0)
    throw InputError(source, "its aliases repeat more nodes than the document holds");
  if (node.IsSequence())
    for (const YAML::Node& item : node) check_tree(item, depth + 1, budget, source);
  if (node.IsMap())
    for (const auto& kv : node) {
      check_tree(kv.first, depth + 1, budget, source);
      check_tree(kv.second, depth + 1, budget, source);
    }
}

}  // namespace

YAML::Node parse_yaml(std::istream& in, const std::string& source) {
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {  // yaml-cpp >= 0.7's own guard
    throw InputError(mark_where(e, source), too_deep());
  } catch (const YAML::Exception& e) {
    throw InputError(mark_where(e, source), "not valid YAML: " + e.msg);
  }
  // A node takes at least one byte of text ("a:" is two nodes in two
  // bytes); twice that leaves room and still stops aliases repeating
  // subtrees.
  long budget = 2 * static_cast<long>(text.size()) + 16;
  check_tree(root, 0, budget, source);
  return root;
}

std::ifstream open_input_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  return in;
}

std::string read_input_file(const std::string& path) {
  std::ifstream in = open_input_file(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
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
