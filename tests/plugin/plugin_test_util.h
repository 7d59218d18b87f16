// Helpers for the plugin tests: temporary directories and files, a fake
// slurmctld view.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/util/error.h"
#include "plugin/compact_graph.h"
#include "plugin/engine.h"
#include "plugin/user_graph.h"

namespace pacml::plugin::testing {

// A directory under /tmp removed (with its files) at the end of the test.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/pacml-plugin-test-XXXXXX";
    const char* d = ::mkdtemp(tmpl);
    if (!d) throw std::runtime_error("mkdtemp failed");
    path_ = d;
  }
  ~TempDir() {
    const std::string cmd = "rm -rf '" + path_ + "'";
    if (std::system(cmd.c_str()) != 0) {
    }
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // Writes `text` atomically (new inode), so a reader sees a changed file.
  std::string write(const std::string& name, const std::string& text, mode_t mode = 0644) const {
    const std::string tmp = file("." + name + ".tmp"), dst = file(name);
    {
      std::ofstream out(tmp);
      out << text;
    }
    ::chmod(tmp.c_str(), mode);
    ::rename(tmp.c_str(), dst.c_str());
    return dst;
  }

 private:
  std::string path_;
};

// slurmctld as the engine sees it: named nodes, some busy or down.
class FakeView : public SlurmView {
 public:
  std::map<std::string, NodeStatus> status;
  std::map<std::string, std::vector<std::string>> partitions;
  std::string default_part;

  bool partition_nodes(const std::string& partition,
                       std::vector<std::string>& nodes) const override {
    auto it = partitions.find(partition);
    if (it == partitions.end()) return false;
    nodes = it->second;
    return true;
  }
  std::map<std::string, std::uint32_t> max_minutes;  // partitions' MaxTime
  bool limits_known = true;                          // false: slurmctld's first seconds
  bool partition_limits_known(const std::string&) const override { return limits_known; }
  bool registering = false;  // true: slurmctld just started, nodes not yet registered
  bool nodes_registering() const override { return registering; }
  std::string default_partition() const override { return default_part; }
  std::optional<std::uint32_t> partition_max_minutes(const std::string& p) const override {
    auto it = max_minutes.find(p);
    if (it == max_minutes.end()) return std::nullopt;
    return it->second;
  }
  // GRES GPUs per node: (configured, in use); absent = not known.
  std::map<std::string, std::pair<int, int>> gpus;
  int node_gpus(const std::string& node) const override {
    auto it = gpus.find(node);
    return it == gpus.end() ? 0 : it->second.first;
  }
  int node_gpus_used(const std::string& node) const override {
    auto it = gpus.find(node);
    return it == gpus.end() ? 0 : it->second.second;
  }
  NodeStatus node_status(const std::string& node) const override {
    auto it = status.find(node);
    return it == status.end() ? NodeStatus::kFree : it->second;
  }
};

inline std::vector<std::string> node_range(int first, int last) {
  std::vector<std::string> out;
  for (int i = first; i <= last; ++i) out.push_back("n" + std::to_string(i));
  return out;
}

// The message of the InputError that f throws, or "" if it throws none.
// --pacml-graph=PATH as the SPANK plugin sends it: the option, and the
// file read here (the user's side) in its compact form, in pieces.
inline std::vector<std::string> sent_graph(const std::string& path,
                                           const GraphLimits& limits = {}) {
  std::vector<std::string> env = {"_SLURM_SPANK_OPTION_pacml_pacml_graph=" + path};
  for (const auto& [name, value] : compact_graph_variables(compact_user_graph(path, limits)))
    env.push_back(name + "=" + value);
  return env;
}

// `a` followed by `b`.
inline std::vector<std::string> joined(std::vector<std::string> a,
                                       const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace pacml::plugin::testing
