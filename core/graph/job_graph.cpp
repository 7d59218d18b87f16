#include "core/graph/job_graph.h"

#include <cstring>

namespace pacml {
namespace {

class Fnv1a {
 public:
  void add(const void* data, size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < size; ++i) hash_ = (hash_ ^ bytes[i]) * 1099511628211ULL;
  }
  void add(double value) { add(&value, sizeof value); }
  void add(int value) { add(&value, sizeof value); }
  void add(const std::string& text) {
    add(text.data(), text.size()), add(static_cast<int>(text.size()));
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 14695981039346656037ULL;
};

std::uint64_t fingerprint_of(const LayerGraph& g) {
  Fnv1a h;
  h.add(g.num_layers());
  for (const Layer& l : g.layers) {
    h.add(l.name);
    h.add(l.forward_time), h.add(l.backward_time), h.add(l.activation_bytes),
        h.add(l.parameter_bytes);
  }
  h.add(g.num_edges());
  for (const LayerEdge& e : g.edges) h.add(e.src), h.add(e.dst);
  h.add(g.output_layer);
  return h.value();
}

LayerGraph validated(LayerGraph g) {
  g.validate(g.model_name.empty() ? "graph" : g.model_name);
  return g;
}

}  // namespace

JobGraph::JobGraph(LayerGraph layers)
    : layers_(validated(std::move(layers))),
      step_(layers_),
      fingerprint_(fingerprint_of(layers_)) {}

}  // namespace pacml
