// Graph readers: the PipeDream and native formats, and every malformed input
// getting a clear error that names the file and line.
#include <gtest/gtest.h>

#include <sstream>

#include "core/cluster/ramp_topology.h"
#include "core/graph/graph_files.h"
#include "core/graph/native_graph.h"
#include "core/graph/pipedream_reader.h"
#include "core/util/error.h"
#include "tests/test_data.h"

namespace pacml {
namespace {

const char* kNode1 =
    "node1 -- Conv -- forward_compute_time=1.5, backward_compute_time=2.0, activation_size=100.0, "
    "parameter_size=10.0\n";
const char* kNode2 =
    "node2 -- ReLU -- forward_compute_time=0.5, backward_compute_time=0.5, activation_size=100.0, "
    "parameter_size=0.0\n";

LayerGraph parse(const std::string& text) {
  std::istringstream in(text);
  return read_pipedream(in, "g.txt");
}

// Expects an InputError whose message contains every fragment.
void expect_error(const std::string& text, std::initializer_list<const char*> fragments) {
  try {
    parse(text);
    FAIL() << "no error for:\n" << text;
  } catch (const InputError& e) {
    for (const char* f : fragments)
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
  }
}

TEST(PipeDreamReader, ReadsNodesInOrderOfAppearanceAndSumsLists) {
  const LayerGraph g = read_pipedream_file(testing::fixture("tiny.txt"));
  EXPECT_EQ(g.model_name, "tiny");
  ASSERT_EQ(g.num_layers(), 4);
  EXPECT_EQ(g.layers[0].name, "node1");
  EXPECT_EQ(g.layers[1].name, "node3");  // node order = first appearance
  EXPECT_DOUBLE_EQ(g.layers[1].activation_bytes, 1024.0);
  EXPECT_EQ(g.layers[g.output_layer].name, "node4");  // largest id
  EXPECT_EQ(g.num_edges(), 3);
}

TEST(PipeDreamReader, ReadsTheGnmtListValuedActivations) {
  const std::string path = testing::pipedream_path("gnmt");
  PACML_REQUIRE_FILE(path);
  const LayerGraph g = read_pipedream_file(path);
  bool saw_list = false;
  for (const Layer& l : g.layers)
    if (l.name == "node7") {  // LSTM(2048, 1024), activation_size=[6291456.0; 131072.0; 131072.0]
      EXPECT_DOUBLE_EQ(l.activation_bytes, 6291456.0 + 131072.0 + 131072.0);
      saw_list = true;
    }
  EXPECT_TRUE(saw_list);
}

TEST(PipeDreamReader, MalformedInputsNameFileAndLine) {
  expect_error("", {"g.txt", "no nodes"});
  expect_error(std::string(kNode1) + "node2 -- ReLU -- forward_compute_time=0.5, backward_compute",
               {"g.txt:2"});
  expect_error(std::string(kNode1) +
                   "node2 -- ReLU -- forward_compute_time=abc, backward_compute_time=0.5, "
                   "activation_size=1, parameter_size=0\n",
               {"g.txt:2", "forward_compute_time", "not a number"});
  expect_error(std::string(kNode1) + "\tnode1 -- node9\n", {"g.txt:2", "unknown node 'node9'"});
  expect_error(std::string(kNode1) + kNode2 + "\tnode1 -- node2\n\tnode2 -- node1\n", {"cycle"});
  expect_error(std::string(kNode1) +
                   "node2 -- ReLU -- forward_compute_time=1e999, backward_compute_time=0.5, "
                   "activation_size=1, parameter_size=0\n",
               {"g.txt:2", "out of range"});
  expect_error(std::string(kNode1) +
                   "node2 -- ReLU -- forward_compute_time=-1, backward_compute_time=0.5, "
                   "activation_size=1, parameter_size=0\n",
               {"g.txt:2", "negative"});
  expect_error(std::string(kNode1) + kNode1, {"g.txt:2", "duplicate node id"});
  expect_error(std::string(kNode1) + "just some text\n", {"g.txt:2", "neither"});
  expect_error(std::string(kNode1) +
                   "node2 -- ReLU -- forward_compute_time=1, activation_size=1, parameter_size=0\n",
               {"g.txt:2", "missing field 'backward_compute_time'"});
  expect_error(std::string(kNode1) +
                   "node2 -- X -- forward_compute_time=1, backward_compute_time=1, "
                   "activation_size=[1; 2, parameter_size=0\n",
               {"g.txt:2"});
}

TEST(PipeDreamReader, UnreadableFileIsAnError) {
  EXPECT_THROW(read_pipedream_file("/nonexistent/graph.txt"), InputError);
}

TEST(NativeGraph, ReadsTheHandWrittenExample) {
  const LayerGraph g = load_graph_file(testing::fixture("tiny.yaml"));
  EXPECT_EQ(g.model_name, "tiny-mlp");
  EXPECT_EQ(g.num_layers(), 4);
  EXPECT_EQ(g.layers[g.output_layer].name, "fc2");
  EXPECT_DOUBLE_EQ(g.layers[1].parameter_bytes, 1606656);
}

TEST(NativeGraph, RoundTripsBothFormats) {
  const LayerGraph original = read_pipedream_file(testing::fixture("tiny.txt"));
  std::stringstream native;
  write_native_graph(original, native);
  const LayerGraph back = read_native_graph(native, "round.yaml");
  ASSERT_EQ(back.num_layers(), original.num_layers());
  for (int i = 0; i < original.num_layers(); ++i) {
    EXPECT_EQ(back.layers[i].name, original.layers[i].name);
    EXPECT_EQ(back.layers[i].forward_time, original.layers[i].forward_time);
    EXPECT_EQ(back.layers[i].activation_bytes, original.layers[i].activation_bytes);
  }
  EXPECT_EQ(back.output_layer, original.output_layer);
  std::stringstream pipedream;
  write_pipedream_graph(back, pipedream);
  const LayerGraph again = read_pipedream(pipedream, "again.txt");
  EXPECT_EQ(again.num_layers(), original.num_layers());
  EXPECT_EQ(again.num_edges(), original.num_edges());
  EXPECT_EQ(again.layers[again.output_layer].forward_time,
            original.layers[original.output_layer].forward_time);
}

TEST(NativeGraph, MalformedInputsNameFileAndLine) {
  auto error_of = [](const std::string& text) -> std::string {
    std::istringstream in(text);
    try {
      read_native_graph(in, "n.yaml");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error_of("ops: [").find("n.yaml"), std::string::npos);
  EXPECT_NE(error_of("name: x\nops: []\n").find("pacml_graph"), std::string::npos);
  EXPECT_NE(error_of("pacml_graph: 2\nops: []\n").find("unsupported graph format version 2"),
            std::string::npos);
  const std::string bad_value =
      "pacml_graph: 1\nops:\n  - {id: a, forward_ms: fast, backward_ms: 1, activation_bytes: 1}\n";
  EXPECT_NE(error_of(bad_value).find("n.yaml:3"), std::string::npos) << error_of(bad_value);
  const std::string unknown_edge =
      "pacml_graph: 1\nops:\n  - {id: a, forward_ms: 1, backward_ms: 1, activation_bytes: "
      "1}\nedges:\n  - [a, b]\n";
  EXPECT_NE(error_of(unknown_edge).find("n.yaml:5: edge to unknown op 'b'"), std::string::npos)
      << error_of(unknown_edge);
  const std::string typo =
      "pacml_graph: 1\nops:\n  - {id: a, forward: 1, backward_ms: 1, activation_bytes: 1}\n";
  EXPECT_NE(error_of(typo).find("n.yaml:3: unknown key 'forward' in op (known: id, label, "),
            std::string::npos)
      << error_of(typo);
  const std::string cycle =
      "pacml_graph: 1\nops:\n  - {id: a, forward_ms: 1, backward_ms: 1, activation_bytes: 1}\n"
      "  - {id: b, forward_ms: 1, backward_ms: 1, activation_bytes: 1}\nedges: [[a, b], [b, a]]\n";
  EXPECT_NE(error_of(cycle).find("cycle"), std::string::npos);
}

TEST(RampTopology, RejectsInvalidParameters) {
  EXPECT_EQ(RampTopology::parse("4x4x2").num_servers(), 32);
  EXPECT_EQ(RampTopology::parse("8x8x8").num_servers(), 512);
  for (const char* bad : {"4x4", "4x5x2", "0x0x1", "axbxc", "4x4x2x1", "", "4x4x-2", "99999x1x1"})
    EXPECT_THROW(RampTopology::parse(bad), InputError) << bad;
  RampParams p;
  p.node_bandwidth = -1;
  EXPECT_THROW(RampTopology{p}, InputError);
  p = RampParams{};
  p.worker_memory = 0;
  EXPECT_THROW(RampTopology{p}, InputError);
  try {
    RampTopology::parse("2x4x2");
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("R=4"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pacml
