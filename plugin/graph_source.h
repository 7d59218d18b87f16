// Graphs for jobs: zoo models by name, admin graph directories, and users'
// own graph files read with the user's rights.
//
// Security (slurmctld is privileged, users are not):
//  * A path a user names is opened with the user's uid, gid and
//    supplementary groups (plugin/user_file.h: a thread that takes them for
//    itself, or a forked child), so the plugin can read exactly what the
//    user could. If slurmctld is not root (it cannot switch users), users'
//    own files are refused and only graph_dirs are used.
//  * Only regular files, at most max_graph_bytes, opened non-blocking (no
//    FIFOs or devices that could hang slurmctld), with a read timeout.
//  * Bare names ("resnet18.txt") are looked up in the admin's graph_dirs;
//    names with "/" or ".." components never are.
//  * Messages name the path and the line at fault, never file contents.
//  * Cost bounds (plugin/README.md, "Cost bounds"): a file is at most
//    max_graph_bytes, at most max_graph_ops layers and at most
//    max_graph_edges edges (12 k edges in 343 KB took 10.8 s), so one submission's
//    parse and decision are bounded; parsed graphs are cached by their full
//    text (LruCache: hash, then a full comparison) within a byte budget, and
//    each distinct text gets a serial fingerprint, so a crafted file never
//    shares another's graph, lookahead or policy cache entries.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "core/graph/job_graph.h"
#include "core/util/lru_cache.h"
#include "plugin/user_file.h"

namespace pacml::plugin {

struct GraphSourceOptions {
  std::vector<std::string> graph_dirs;
  bool user_graph_files = true;
  long max_bytes = 512L << 10;
  long max_ops = 2000;      // layers (forward ops)
  long max_edges = 4000;    // edges between them
  double read_timeout = 5;  // seconds
};

class GraphSource {
 public:
  // max_bytes: the cache's budget, counted as graph text plus an estimate
  // of the parsed graph (see graph_file).
  explicit GraphSource(size_t max_bytes = kDefaultCacheBytes) : cache_(max_bytes) {}
  static constexpr size_t kDefaultCacheBytes = 64u << 20;

  // A zoo model with default options (cached).
  JobGraphPtr zoo_model(const std::string& name);
  // A graph file as the user may read it (parsed graphs cached by content).
  // `resolved` (if given) receives the absolute path that was read.
  JobGraphPtr graph_file(const std::string& name, const UserIdentity& user,
                         const GraphSourceOptions& options, std::string* resolved = nullptr);

  size_t size() const;
  size_t bytes() const;

 private:
  JobGraphPtr lookup(const std::string& key);
  // Builds the graph under a fresh serial fingerprint and caches it.
  JobGraphPtr insert(const std::string& key, LayerGraph layers, size_t text_bytes);

  mutable std::mutex mutex_;
  LruCache<JobGraphPtr> cache_;
};

}  // namespace pacml::plugin
