// The graphs an experiment or a trace replay can use, each loaded once and
// shared (immutable JobGraphs are safe to share between threads).
//
// A graph is named by a file (PipeDream graph.txt or pacml native YAML) or by
// a model-zoo name (core/zoo/model_zoo.h: alexnet, vgg16, resnet18, resnet50,
// squeezenet1_0, inception_v3, gnmt, bert-base, bert-large, gpt2,
// gpt2-medium, deepspeech2; aliases bert, inception3).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/graph/job_graph.h"

namespace pacml::sim {

class GraphCatalog {
 public:
  // Loads (once) the graph in `path`; registers it under its model name and
  // `alias` (if not empty). Throws InputError from the reader.
  JobGraphPtr load_file(const std::string& path, const std::string& alias = "");
  // Builds (once) a zoo model. Throws InputError(where, ...) for unknown names.
  JobGraphPtr zoo(const std::string& name, const std::string& where);
  // A graph registered under `name` (from a file or an earlier zoo build),
  // else the zoo model of that name. Throws InputError(where, ...).
  JobGraphPtr by_name(const std::string& name, const std::string& where);
  // Registers an already-built graph under `name`.
  void add(const std::string& name, JobGraphPtr graph);
  // Is `name` known without building anything?
  bool has(const std::string& name) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, JobGraphPtr> by_name_;
  std::map<std::string, JobGraphPtr> by_path_;
};

// "file.txt", "dir/x.yaml" → true; "resnet50" → false (a zoo/catalog name).
bool looks_like_path(const std::string& text);

}  // namespace pacml::sim
