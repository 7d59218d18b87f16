// Helpers shared by the simulator tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/graph/job_graph.h"
#include "core/jct/estimator.h"
#include "sim/engine/environment.h"
#include "sim/workload/graph_catalog.h"
#include "tests/test_data.h"

namespace pacml::testing {

// The five paper graphs, or empty when ../shared/data is absent.
inline std::vector<JobGraphPtr> paper_graphs(sim::GraphCatalog& catalog) {
  std::vector<JobGraphPtr> out;
  for (const char* m : {"alexnet", "resnet18", "squeezenet1_0", "vgg16", "gnmt"}) {
    const std::string path = pipedream_path(m);
    if (!file_exists(path)) return {};
    out.push_back(catalog.load_file(path));
  }
  return out;
}

// Zoo graphs (always available).
inline std::vector<JobGraphPtr> zoo_graphs(sim::GraphCatalog& catalog) {
  std::vector<JobGraphPtr> out;
  for (const char* m : {"alexnet", "resnet18", "vgg16", "gnmt"})
    out.push_back(catalog.by_name(m, "test"));
  return out;
}

// A workload that replays a fixed list of jobs.
class ListWorkload : public sim::Workload {
 public:
  explicit ListWorkload(std::vector<sim::JobSpec> jobs) : jobs_(std::move(jobs)) {}
  std::unique_ptr<sim::JobStream> start(std::uint64_t) const override {
    struct Stream : sim::JobStream {
      const std::vector<sim::JobSpec>* jobs;
      size_t i = 0;
      std::optional<sim::JobSpec> next() override {
        if (i >= jobs->size()) return std::nullopt;
        return (*jobs)[i++];
      }
    };
    auto s = std::make_unique<Stream>();
    s->jobs = &jobs_;
    return s;
  }
  std::vector<JobGraphPtr> graphs() const override { return {}; }
  std::string beta_label() const override { return "list"; }
  std::string describe() const override { return "list"; }

 private:
  std::vector<sim::JobSpec> jobs_;
};

}  // namespace pacml::testing
