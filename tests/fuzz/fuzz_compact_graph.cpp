// The compact graph form slurmctld receives from the SPANK plugin
// (plugin/compact_graph.h): the whole input is one PACML_GRAPH_DATA value,
// decoded and parsed with small limits, as job_submit/pacml does. A form that
// passes must give a graph within the limits that encodes to a form that
// decodes to the same graph again.
#include "core/util/error.h"
#include "plugin/compact_graph.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_compact_graph(const std::string& input) {
  pacml::plugin::GraphLimits limits;
  limits.max_bytes = 64 << 10;
  limits.max_ops = 200;
  limits.max_edges = 400;
  const pacml::LayerGraph g = pacml::plugin::parse_compact_graph(input, "/fuzz/g.txt", limits);
  PACML_FUZZ_CHECK(g.num_layers() >= 1 && g.num_layers() <= limits.max_ops, "layers in bounds");
  PACML_FUZZ_CHECK(g.num_edges() <= limits.max_edges, "edges in bounds");
  const std::string again = pacml::plugin::encode_compact_graph(g);
  const pacml::LayerGraph h = pacml::plugin::parse_compact_graph(again, "/fuzz/g.txt", limits);
  PACML_FUZZ_CHECK(h.num_layers() == g.num_layers() && h.num_edges() == g.num_edges() &&
                       h.output_layer == g.output_layer && h.model_name == g.model_name,
                   "a decoded graph encodes to the same graph");
}
PACML_FUZZ_TARGET("compact_graph", fuzz_compact_graph);
