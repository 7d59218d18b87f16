#include "core/graph/graph_files.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "core/graph/native_graph.h"
#include "core/graph/pipedream_reader.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/text.h"

namespace pacml {

std::string model_name_from_path(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  for (const char* ext : {".txt", ".yaml", ".yml"})
    if (ends_with(name, ext)) return name.substr(0, name.size() - std::strlen(ext));
  return name;
}

GraphFormat detect_graph_format(const std::string& path) {
  if (ends_with(path, ".yaml") || ends_with(path, ".yml")) return GraphFormat::kNative;
  std::ifstream in(path);
  if (!in) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  std::string line;
  for (int i = 0; i < 50 && std::getline(in, line); ++i) {
    std::string_view text = trim(line);
    if (text.empty() || text.front() == '#') continue;
    return text.rfind("pacml_graph", 0) == 0 ? GraphFormat::kNative : GraphFormat::kPipeDream;
  }
  return GraphFormat::kPipeDream;
}

LayerGraph load_graph_file(const std::string& path) {
  return detect_graph_format(path) == GraphFormat::kNative ? read_native_graph_file(path)
                                                           : read_pipedream_file(path);
}

}  // namespace pacml
