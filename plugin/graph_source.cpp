#include "plugin/graph_source.h"

#include <atomic>
#include <optional>

#include "core/graph/graph_files.h"
#include "core/util/error.h"
#include "core/zoo/model_zoo.h"
#include "plugin/compact_graph.h"
#include "plugin/regular_file.h"

namespace pacml::plugin {
namespace {

bool safe_bare_name(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return false;
  return name != "." && name != "..";
}

// Why a job that names a file got no graph: slurmctld does not read users'
// files, only the SPANK plugin on the submitting side does.
[[noreturn]] void no_compact_form(const std::string& name, bool bare) {
  throw InputError(
      name, std::string(bare ? "not in the site's graph directories (graph_dirs), and " : "") +
                "no graph came with the job: slurmctld does not read users' files; submit with "
                "sbatch, salloc or srun where spank_pacml.so is in plugstack.conf (it reads the "
                "file as you and sends the graph), or use --pacml-model");
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

JobGraphPtr GraphSource::graph_text(const std::string& text, const std::string& path,
                                    const GraphLimits& limits) {
  // The whole text is the key, with the format it is read as and the model
  // name (from the path) behind its length, so that no name and text can
  // spell another pair's key and a text is never served as the other format.
  const bool native = is_native_graph(text, path);
  const std::string model = model_name_from_path(path);
  const std::string key = std::string(native ? "native:" : "pipedream:") +
                          std::to_string(model.size()) + ":" + model + text;
  if (JobGraphPtr g = lookup(key)) return g;
  return insert(key, parse_graph_text(text, path, native, limits), text.size());
}

// An admin directory's file (slurmctld's rights: admin content), read
// through the descriptor: a FIFO or a link there cannot block or redirect
// slurmctld. nullptr if no directory has it.
JobGraphPtr GraphSource::site_graph(const std::string& name, const GraphSourceOptions& options,
                                    std::string* resolved) {
  for (const std::string& dir : options.graph_dirs) {
    const std::string path = dir + "/" + name;
    if (std::optional<std::string> text = read_regular_file(path, options.limits.max_bytes)) {
      if (resolved) *resolved = path;
      return graph_text(*text, path, options.limits);
    }
  }
  return nullptr;
}

JobGraphPtr GraphSource::job_graph(const GraphRequest& request, const GraphSourceOptions& options,
                                   std::string* resolved) {
  const std::string& name = request.name;
  if (!request.error.empty())  // the SPANK plugin's own message, as sbatch printed it
    throw InputError("", request.error.substr(0, kMaxGraphErrorBytes));
  if (!request.compact.empty()) {
    if (!options.user_graph_files)
      throw InputError(name,
                       "this site does not accept users' own graph files; name one of its "
                       "graph directories' files or use --pacml-model");
    if (resolved) *resolved = name;
    // Keyed by the whole form: its digest is no identity, only a check.
    const std::string key = "compact:" + request.compact;
    if (JobGraphPtr g = lookup(key)) return g;
    return insert(key, parse_compact_graph(request.compact, name, options.limits),
                  request.compact.size());
  }
  const bool bare = safe_bare_name(name);
  if (bare)
    if (JobGraphPtr g = site_graph(name, options, resolved)) return g;
  no_compact_form(name, bare);
}

}  // namespace pacml::plugin
