#include "core/util/yaml_input.h"

#include <cerrno>
#include <cstring>

namespace pacml {

std::string yaml_where(const std::string& source, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return mark.line >= 0 ? file_line(source, mark.line + 1) : source;
}

YAML::Node parse_yaml(std::istream& in, const std::string& source) {
  try {
    return YAML::Load(in);
  } catch (const YAML::Exception& e) {
    throw InputError(e.mark.line >= 0 ? file_line(source, e.mark.line + 1) : source,
                     "not valid YAML: " + e.msg);
  }
}

std::ifstream open_input_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  return in;
}

}  // namespace pacml
