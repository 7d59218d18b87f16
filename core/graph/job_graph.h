// A model graph prepared for estimation: the validated layer graph, its
// training-step graph and a fingerprint that identifies it in caches.
// Immutable after construction, so any number of threads may share one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/graph/layer_graph.h"
#include "core/graph/step_graph.h"

namespace pacml {

class JobGraph {
 public:
  // Validates `layers` (throws InputError naming the model otherwise).
  explicit JobGraph(LayerGraph layers);
  // With a fingerprint the caller vouches for (see fingerprint()).
  JobGraph(LayerGraph layers, std::uint64_t fingerprint);
  JobGraph(const JobGraph&) = delete;  // step_ refers into layers_
  JobGraph& operator=(const JobGraph&) = delete;

  const std::string& name() const { return layers_.model_name; }
  const LayerGraph& layers() const { return layers_; }
  const StepGraph& step() const { return step_; }
  // Identifies the graph in caches (lookahead, learned policy). By default
  // FNV-1a over every layer value and edge: equal graphs, equal fingerprints,
  // but a crafted graph can collide with another. Where graphs come from
  // untrusted users (the Slurm plugin), GraphSource compares contents in full
  // and hands out a serial number per distinct content instead, which no
  // file can forge.
  std::uint64_t fingerprint() const { return fingerprint_; }

 private:
  LayerGraph layers_;
  StepGraph step_;
  std::uint64_t fingerprint_;
};

using JobGraphPtr = std::shared_ptr<const JobGraph>;

inline JobGraphPtr make_job_graph(LayerGraph layers) {
  return std::make_shared<const JobGraph>(std::move(layers));
}
inline JobGraphPtr make_job_graph(LayerGraph layers, std::uint64_t fingerprint) {
  return std::make_shared<const JobGraph>(std::move(layers), fingerprint);
}

}  // namespace pacml
