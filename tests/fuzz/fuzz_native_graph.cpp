// pacml's native graph YAML: core/graph/native_graph.h. A graph that parses
// must also survive a write/read round trip in both formats.
#include <sstream>

#include "core/graph/native_graph.h"
#include "core/graph/pipedream_reader.h"
#include "tests/fuzz/fuzz_graph_util.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_native_graph(const std::string& input) {
  std::istringstream in(input);
  pacml::LayerGraph graph = pacml::read_native_graph(in, "fuzz.yaml");
  std::ostringstream native, pipedream;
  pacml::write_native_graph(graph, native);
  pacml::write_pipedream_graph(graph, pipedream);
  std::istringstream native_in(native.str()), pipedream_in(pipedream.str());
  pacml::read_native_graph(native_in, "round-trip.yaml");
  pacml::read_pipedream(pipedream_in, "round-trip.txt");
  pacml::fuzz::exercise_graph(std::move(graph));
}
PACML_FUZZ_TARGET("native_graph", fuzz_native_graph);
