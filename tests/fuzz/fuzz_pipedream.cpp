// PipeDream profiler output (graph.txt): core/graph/pipedream_reader.h.
#include <sstream>

#include "core/graph/pipedream_reader.h"
#include "tests/fuzz/fuzz_graph_util.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_pipedream(const std::string& input) {
  std::istringstream in(input);
  pacml::fuzz::exercise_graph(pacml::read_pipedream(in, "fuzz.txt"));
}
PACML_FUZZ_TARGET("pipedream", fuzz_pipedream);
