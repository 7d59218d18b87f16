#include "sim/workload/graph_catalog.h"

#include "core/graph/graph_files.h"
#include "core/util/error.h"
#include "core/zoo/model_zoo.h"

namespace pacml::sim {

bool looks_like_path(const std::string& text) {
  if (text.find('/') != std::string::npos) return true;
  for (const char* ext : {".txt", ".yaml", ".yml"}) {
    const std::string e(ext);
    if (text.size() > e.size() && text.compare(text.size() - e.size(), e.size(), e) == 0)
      return true;
  }
  return false;
}

JobGraphPtr GraphCatalog::load_file(const std::string& path, const std::string& alias) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = by_path_.find(path);
    if (it != by_path_.end()) {
      if (!alias.empty()) by_name_[alias] = it->second;
      return it->second;
    }
  }
  JobGraphPtr graph = make_job_graph(load_graph_file(path));
  std::lock_guard<std::mutex> lock(mutex_);
  by_path_[path] = graph;
  by_name_.emplace(graph->name(), graph);
  if (!alias.empty()) by_name_[alias] = graph;
  return graph;
}

JobGraphPtr GraphCatalog::zoo(const std::string& name, const std::string& where) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = by_name_.find("zoo:" + name);
    if (it != by_name_.end()) return it->second;
  }
  // The paper-style experiments (contrib/experiments/paper-zoo.yaml), the
  // traces mapped onto zoo graphs and the policies trained on them
  // (contrib/models/paper-zoo.pacw) were built with eager attention, the zoo's
  // only kind before SDPA: their graphs keep it.
  ZooOptions options;
  options.attention = Attention::kEager;
  LayerGraph layers;
  try {
    layers = build_zoo_model(name, options).graph;
  } catch (const InputError& e) {
    throw InputError(where, e.what());
  }
  JobGraphPtr graph = make_job_graph(std::move(layers));
  std::lock_guard<std::mutex> lock(mutex_);
  by_name_["zoo:" + name] = graph;
  by_name_.emplace(name, graph);
  return graph;
}

JobGraphPtr GraphCatalog::by_name(const std::string& name, const std::string& where) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = by_name_.find(name);
    if (it != by_name_.end()) return it->second;
  }
  return zoo(name, where);
}

void GraphCatalog::add(const std::string& name, JobGraphPtr graph) {
  std::lock_guard<std::mutex> lock(mutex_);
  by_name_[name] = std::move(graph);
}

bool GraphCatalog::has(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return by_name_.count(name) > 0;
}

}  // namespace pacml::sim
