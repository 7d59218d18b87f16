// Helpers for the learned-policy tests: real job graphs and random weights.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/features/features.h"
#include "core/graph/graph_files.h"
#include "core/graph/job_graph.h"
#include "core/inference/learned_model.h"
#include "core/jct/estimator.h"
#include "core/policy/policy.h"
#include "core/util/error.h"
#include "core/zoo/model_zoo.h"
#include "tests/test_data.h"

namespace pacml::testing {

// Weights with every parameter drawn uniformly from [-scale, scale] (LayerNorm
// gains around 1), plus complete metadata for `profile`.
inline inference::WeightsFile random_weights(std::uint64_t seed, const std::string& profile,
                                             const features::Normalisers& norm, double scale = 0.5,
                                             const inference::Architecture& arch = {}) {
  Rng rng(seed);
  inference::WeightsFile w;
  w.metadata = inference::make_metadata(arch, norm, profile, {{"shape", "4x4x2"}, {"servers", 32}},
                                        {{"test", true}}, "test");
  for (const auto& [name, shape] : arch.tensor_shapes()) {
    inference::NamedTensor t;
    t.name = name;
    t.shape = shape;
    t.data.resize(static_cast<size_t>(t.numel()));
    const bool gain = name.find("_ln.weight") != std::string::npos;
    for (float& v : t.data)
      v = static_cast<float>((gain ? 1.0 : 0.0) + scale * (2 * rng.uniform() - 1));
    w.tensors.push_back(std::move(t));
  }
  return w;
}

// The five paper graphs from ../shared/data (those present).
inline std::vector<JobGraphPtr> paper_graphs() {
  std::vector<JobGraphPtr> out;
  for (const char* m : {"alexnet", "resnet18", "squeezenet1_0", "vgg16", "gnmt"})
    if (file_exists(pipedream_path(m)))
      out.push_back(make_job_graph(load_graph_file(pipedream_path(m))));
  return out;
}

// Real job graphs: the paper's PipeDream graphs when ../shared/data is present,
// else zoo graphs (alexnet, resnet18, squeezenet1_0, vgg16, gnmt, resnet50).
inline std::vector<JobGraphPtr> real_graphs() {
  std::vector<JobGraphPtr> out = paper_graphs();
  if (!out.empty()) return out;
  for (const char* m : {"alexnet", "resnet18", "squeezenet1_0", "vgg16", "gnmt", "resnet50"})
    out.push_back(make_job_graph(build_zoo_model(m).graph));
  return out;
}

}  // namespace pacml::testing
