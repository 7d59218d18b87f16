#include "core/graph/job_graph.h"

#include "core/util/hash.h"

namespace pacml {
namespace {

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

JobGraph::JobGraph(LayerGraph layers, std::uint64_t fingerprint)
    : layers_(validated(std::move(layers))), step_(layers_), fingerprint_(fingerprint) {}

}  // namespace pacml
