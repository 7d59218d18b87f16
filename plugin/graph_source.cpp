#include "plugin/graph_source.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>
#include <sstream>

#include "core/graph/graph_files.h"
#include "core/graph/native_graph.h"
#include "core/graph/pipedream_reader.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/yaml_input.h"
#include "core/zoo/model_zoo.h"
#include "plugin/regular_file.h"

namespace pacml::plugin {
namespace {

bool safe_bare_name(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return false;
  return name != "." && name != "..";
}

// The problems of a graph's shape (core/graph/layer_graph.cpp's checks),
// which name only layers, never values: told to the user as they are, so a
// cycle says which layers form it. "" for any other error.
std::string structural_problem(const InputError& e) {
  std::string text = e.what();
  if (!e.where().empty() && text.rfind(e.where() + ": ", 0) == 0)
    text = text.substr(e.where().size() + 2);
  for (const char* kind : {"graph has a cycle: ", "self loop on ", "duplicate edge ",
                           "edge from unknown node ", "edge to unknown node ",
                           "edge refers to a layer that does not exist", "output layer is not set"})
    if (text.rfind(kind, 0) == 0)
      return text + " (the graph must be acyclic: see the plugin README for the formats)";
  return "";
}

// Whether graph text is read as a native (YAML) graph: by the path's
// extension, else by its first line ("pacml_graph: 1"); PipeDream otherwise.
bool is_native_graph(const std::string& text, const std::string& path) {
  for (const char* ext : {".yaml", ".yml"})
    if (path.size() >= std::strlen(ext) &&
        path.compare(path.size() - std::strlen(ext), std::strlen(ext), ext) == 0)
      return true;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const std::string_view t = trim(line);
    if (t.empty() || t.front() == '#') continue;
    return t.rfind("pacml_graph", 0) == 0;
  }
  return false;
}

// Parses graph text; errors keep only the location, never the file's text
// (values could be anything the user's file holds), except the shape
// problems above.
LayerGraph parse_graph_text(const std::string& text, const std::string& path, bool native,
                            const GraphSourceOptions& options) {
  LayerGraph g;
  try {
    std::istringstream in(text);
    g = native ? read_native_graph(in, path) : read_pipedream(in, path);
    if (!native || g.model_name.empty()) g.model_name = model_name_from_path(path);
    g.validate(path);  // the errors JobGraph's constructor would raise, worded below
  } catch (const InputError& e) {
    const std::string& where = e.where().empty() ? path : e.where();
    if (const std::string shape = structural_problem(e); !shape.empty())
      throw InputError(where, shape);
    if (const std::string text = e.what(); text.find(kYamlTooDeep) != std::string::npos)
      throw InputError(where, std::string("not a valid native (YAML) graph file: ") + kYamlTooDeep +
                                  " " + std::to_string(kMaxYamlDepth) + " levels deep");
    throw InputError(where, std::string("not a valid ") +
                                (native ? "native (YAML) graph" : "PipeDream graph") +
                                " file (see the plugin README for the formats)");
  }
  // Parsing is bounded by max_graph_bytes; the decision's work grows with
  // the layers, so they are bounded too (plugin/README.md, "Cost bounds").
  if (g.num_layers() > options.max_ops)
    throw InputError(path, "cannot use: " + std::to_string(g.num_layers()) +
                               " layers, more than the site's limit of " +
                               std::to_string(options.max_ops) + " (max_graph_ops)");
  if (g.num_edges() > options.max_edges)
    throw InputError(path, "cannot use: " + std::to_string(g.num_edges()) +
                               " edges, more than the site's limit of " +
                               std::to_string(options.max_edges) + " (max_graph_edges)");
  return g;
}

}  // namespace

JobGraphPtr GraphSource::lookup(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  const JobGraphPtr* g = cache_.find(key);
  return g ? *g : nullptr;
}

JobGraphPtr GraphSource::insert(const std::string& key, LayerGraph layers, size_t text_bytes) {
  // Serials are never reused: graphs of different contents never share a
  // fingerprint, even after an eviction, so neither do their entries in the
  // lookahead and policy caches (which are keyed by it).
  static std::atomic<std::uint64_t> next_serial{1};
  // What a parsed graph costs beyond its text: each layer, its forward and
  // backward step-graph ops and their edges. A conservative estimate: `pacml
  // estimate --graph` grows by ~5 KB per layer of a chain, working memory
  // included.
  constexpr size_t kBytesPerLayer = 4096;
  const size_t bytes = text_bytes + kBytesPerLayer * layers.layers.size();
  JobGraphPtr g = make_job_graph(std::move(layers), next_serial++);
  std::lock_guard<std::mutex> lock(mutex_);
  cache_.insert(key, g, bytes);
  return g;
}

size_t GraphSource::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cache_.size();
}

size_t GraphSource::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cache_.bytes();
}

JobGraphPtr GraphSource::zoo_model(const std::string& name) {
  const std::string key = "zoo:" + name;
  if (JobGraphPtr g = lookup(key)) return g;
  if (!is_zoo_model(name)) zoo_model_info(name);  // throws "unknown model … known: …"
  return insert(key, build_zoo_model(name).graph, 0);
}

JobGraphPtr GraphSource::graph_file(const std::string& name, const UserIdentity& user,
                                    const GraphSourceOptions& options, std::string* resolved) {
  std::string text, path;
  if (safe_bare_name(name)) {
    // An admin directory first (read with slurmctld's rights: admin content),
    // through the descriptor: a FIFO or a link there cannot block or
    // redirect slurmctld.
    for (const std::string& dir : options.graph_dirs) {
      const std::string candidate = dir + "/" + name;
      if (std::optional<std::string> found = read_regular_file(candidate, options.max_bytes)) {
        text = std::move(*found);
        path = candidate;
        break;
      }
    }
  }
  if (path.empty()) {
    if (!options.user_graph_files)
      throw InputError(name,
                       "graph file not found in the site's graph directories (this site "
                       "does not read users' own graph files)");
    path = name;
    if (path[0] != '/') {
      if (user.work_dir.empty() || user.work_dir[0] != '/')
        throw InputError(name, "give an absolute path (no working directory known)");
      path = user.work_dir + "/" + name;
    }
    text = read_file_as_user(path, user, options.max_bytes, options.read_timeout);
  }
  if (resolved) *resolved = path;
  // The whole text is the key, with the format it is read as and the model
  // name (from the path) behind its length, so that no name and text can
  // spell another pair's key and a text is never served as the other format.
  const bool native = is_native_graph(text, path);
  const std::string model = model_name_from_path(path);
  const std::string key = std::string(native ? "native:" : "pipedream:") +
                          std::to_string(model.size()) + ":" + model + text;
  if (JobGraphPtr g = lookup(key)) return g;
  return insert(key, parse_graph_text(text, path, native, options), text.size());
}

}  // namespace pacml::plugin
