// Graphs for jobs in slurmctld: zoo models by name, the admin's graph
// directories, and users' graphs in the compact form the SPANK plugin sent.
//
// Security (slurmctld is privileged, users are not; plugin/README.md,
// "Security"):
//  * slurmctld never opens a path a user names. The SPANK plugin reads the
//    user's file in sbatch/salloc/srun, as the user, and sends the parsed
//    graph's compact form (plugin/compact_graph.h); a job that names a file
//    without it is refused with a message.
//  * Bare names ("resnet18.txt") are looked up in the admin's graph_dirs;
//    names with "/" or ".." components never are. Those files are opened
//    non-blocking and without following links, and only a regular file of
//    at most max_graph_bytes is read (plugin/regular_file.h).
//  * Messages name the path and the line at fault, never file contents.
//  * Cost bounds: plugin/graph_text.h's limits on both kinds; parsed graphs
//    are cached by their full text (LruCache: hash, then a full comparison)
//    within a byte budget, and each distinct text gets a serial fingerprint,
//    so a crafted graph never shares another's graph, lookahead or policy
//    cache entries.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "core/graph/job_graph.h"
#include "core/util/lru_cache.h"
#include "plugin/graph_text.h"

namespace pacml::plugin {

struct GraphSourceOptions {
  std::vector<std::string> graph_dirs;
  bool user_graph_files = true;  // accept users' graphs (the compact form)
  GraphLimits limits;
};

// What a job names: its --pacml-graph text and what the SPANK plugin sent.
struct GraphRequest {
  std::string name;     // --pacml-graph (an absolute path once SPANK resolved it)
  std::string compact;  // PACML_GRAPH_DATA ("" = none)
  std::string error;    // PACML_GRAPH_ERROR: why the SPANK plugin could not read it
};

class GraphSource {
 public:
  // max_bytes: the cache's budget, counted as graph text plus an estimate
  // of the parsed graph (see insert).
  explicit GraphSource(size_t max_bytes = kDefaultCacheBytes) : cache_(max_bytes) {}
  static constexpr size_t kDefaultCacheBytes = 64u << 20;

  // A zoo model with default options (cached).
  JobGraphPtr zoo_model(const std::string& name);
  // The job's graph: the compact form if the SPANK plugin sent one, else a
  // bare name from graph_dirs; else InputError telling the user why.
  // `resolved` (if given) receives the path the graph is known by.
  JobGraphPtr job_graph(const GraphRequest& request, const GraphSourceOptions& options,
                        std::string* resolved = nullptr);
  // Graph text (a site file's) parsed with the limits, cached by content.
  JobGraphPtr graph_text(const std::string& text, const std::string& path,
                         const GraphLimits& limits);

  size_t size() const;
  size_t bytes() const;

 private:
  JobGraphPtr lookup(const std::string& key);
  // Builds the graph under a fresh serial fingerprint and caches it.
  JobGraphPtr insert(const std::string& key, LayerGraph layers, size_t text_bytes);
  JobGraphPtr site_graph(const std::string& name, const GraphSourceOptions& options,
                         std::string* resolved);

  mutable std::mutex mutex_;
  LruCache<JobGraphPtr> cache_;
};

}  // namespace pacml::plugin
