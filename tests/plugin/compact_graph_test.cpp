// The compact form a user's graph reaches slurmctld in (plugin/compact_graph.h),
// and what the SPANK plugin decides locally (plugin/spank_step.h).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "core/graph/pipedream_reader.h"
#include "core/zoo/model_zoo.h"
#include "plugin/compact_graph.h"
#include "plugin/request.h"
#include "plugin/spank_step.h"
#include "tests/plugin/plugin_test_util.h"

namespace pacml::plugin {
namespace {

using testing::error_of;
using testing::TempDir;

std::string source_text(const std::string& path) {
  std::ifstream in(std::string(PACML_SOURCE_DIR) + "/" + path);
  std::ostringstream all;
  all << in.rdbuf();
  return all.str();
}

void expect_same_graph(const LayerGraph& a, const LayerGraph& b) {
  EXPECT_EQ(a.model_name, b.model_name);
  ASSERT_EQ(a.num_layers(), b.num_layers());
  ASSERT_EQ(a.num_edges(), b.num_edges());
  EXPECT_EQ(a.output_layer, b.output_layer);
  for (int i = 0; i < a.num_layers(); ++i) {
    EXPECT_EQ(a.layers[i].forward_time, b.layers[i].forward_time) << i;
    EXPECT_EQ(a.layers[i].backward_time, b.layers[i].backward_time) << i;
    EXPECT_EQ(a.layers[i].activation_bytes, b.layers[i].activation_bytes) << i;
    EXPECT_EQ(a.layers[i].parameter_bytes, b.layers[i].parameter_bytes) << i;
  }
  for (int i = 0; i < a.num_edges(); ++i) {
    EXPECT_EQ(a.edges[i].src, b.edges[i].src) << i;
    EXPECT_EQ(a.edges[i].dst, b.edges[i].dst) << i;
  }
}

// What slurmctld decides on is exactly the graph the user's file describes:
// every number, edge and the output layer, in node order, for both formats
// and for the largest zoo graph (gpt2-xl, 728 layers).
TEST(CompactGraph, CarriesTheGraphExactly) {
  const GraphLimits limits;
  std::vector<LayerGraph> graphs;
  for (const char* path :
       {"tests/fixtures/tiny.txt", "tests/fixtures/tiny.yaml", "contrib/graphs/example-cnn.yaml"})
    graphs.push_back(parse_graph_text(source_text(path), path,
                                      is_native_graph(source_text(path), path), limits));
  for (const char* zoo : {"gnmt", "resnet50", "gpt2-xl"})
    graphs.push_back(build_zoo_model(zoo).graph);
  for (const LayerGraph& g : graphs) {
    SCOPED_TRACE(g.model_name);
    const std::string form = encode_compact_graph(g);
    expect_same_graph(g, parse_compact_graph(form, "/home/u/" + g.model_name, limits));
    for (char c : form)  // no free text of the user's: printable ASCII only
      ASSERT_TRUE(c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f));
  }
}

TEST(CompactGraph, ADamagedFormIsRefusedNamingWhatAndWhere) {
  const GraphLimits limits;
  const std::string form = encode_compact_graph(build_zoo_model("resnet50").graph);
  const size_t eol = form.find('\n');
  const auto refusal = [&](const std::string& value, const GraphLimits& l = {}) {
    return error_of([&] { decode_compact_graph(value, l); });
  };
  EXPECT_NE(refusal(form.substr(0, form.size() - 5)).find("is not the payload's"),
            std::string::npos);
  std::string flipped = form;
  flipped[eol + 20] = flipped[eol + 20] == '1' ? '2' : '1';
  EXPECT_NE(refusal(flipped).find("the digest does not match"), std::string::npos);
  std::string binary = form;
  binary[eol + 7] = '\x01';
  EXPECT_NE(refusal(binary).find("PACML_GRAPH_DATA: byte " + std::to_string(eol + 7) +
                                 ": not printable ASCII"),
            std::string::npos)
      << refusal(binary);
  EXPECT_NE(refusal("no header").find("no header line"), std::string::npos);
  EXPECT_NE(refusal("pacml-graph/2" + form.substr(13)).find("not a compact graph of this version"),
            std::string::npos);
  EXPECT_NE(refusal("pacml-graph/1 1 0123456789abcdef a$b\nx").find("the name may hold only"),
            std::string::npos);
  EXPECT_NE(refusal("pacml-graph/1 1 0123456789abcdef\nx").find("BYTES DIGEST NAME"),
            std::string::npos);
  // the limits, counted on the lines before anything is parsed
  GraphLimits few = limits;
  few.max_ops = 10;
  EXPECT_NE(refusal(form, few).find("layers, more than the site's limit of 10 (max_graph_ops)"),
            std::string::npos);
  few = limits;
  few.max_edges = 10;
  EXPECT_NE(refusal(form, few).find("edges, more than the site's limit of 10 (max_graph_edges)"),
            std::string::npos);
  few = limits;
  few.max_bytes = 1024;
  EXPECT_NE(refusal(form, few).find("larger than the site's limit of 1024 bytes (max_graph_bytes)"),
            std::string::npos);
  EXPECT_EQ(decode_compact_graph(form, limits).name, "resnet50");
}

// Slurm's clients refuse an environment variable of 128 KiB or more: the form
// travels in pieces, which the request puts together again in order.
TEST(CompactGraph, TravelsInPiecesUnder128KiB) {
  const LayerGraph g = build_zoo_model("gpt2-xl").graph;
  const std::string form = encode_compact_graph(g);
  const auto pieces = compact_graph_variables(form);
  ASSERT_GE(pieces.size(), 2u) << form.size();
  std::vector<std::string> env = {"_SLURM_SPANK_OPTION_pacml_pacml_graph=/home/u/g.txt"};
  for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) {  // any order
    EXPECT_LT(it->first.size() + it->second.size() + 2, 128u << 10);
    env.push_back(it->first + "=" + it->second);
  }
  EXPECT_EQ(extract_request(env, "").graph_compact, form);
  env.erase(env.begin() + 1);  // the last piece lost: the frame's size tells
  EXPECT_NE(error_of([&] {
              decode_compact_graph(extract_request(env, "").graph_compact, GraphLimits());
            }).find("is not the payload's"),
            std::string::npos);
  EXPECT_EQ(compact_graph_piece("PACML_GRAPH_DATA_0"), 0);
  EXPECT_EQ(compact_graph_piece("PACML_GRAPH_DATA_12"), 12);
  for (const char* not_one : {"PACML_GRAPH_DATA", "PACML_GRAPH_DATA_", "PACML_GRAPH_DATA_01",
                              "PACML_GRAPH_DATA_x", "PACML_GRAPH_DATA_9999", "PACML_GRAPH"})
    EXPECT_EQ(compact_graph_piece(not_one), -1) << not_one;
  // only a job with --pacml-graph carries one
  EXPECT_EQ(extract_request(
                {"_SLURM_SPANK_OPTION_pacml_pacml_model=gnmt", "PACML_GRAPH_DATA_0=" + form}, "")
                .graph_compact,
            "");
}

// slurmstepd asks slurmctld for a step's plan (one slurm_load_job RPC) only
// for pacml jobs: every step on the cluster passes through slurm_spank_init
// (give_step_its_plan).
TEST(SpankStep, OnlyPacmlJobsStepsAskSlurmctld) {
  const auto step = [](std::map<std::string, std::string> env) {
    return step_needs_plan_lookup([&](const char* name) { return env.count(name) > 0; });
  };
  EXPECT_FALSE(step({}));                                         // a job pacml never saw
  EXPECT_FALSE(step({{"SLURM_JOB_ID", "7"}, {"PATH", "/bin"}}));  // ditto
  EXPECT_TRUE(step({{"PACML_JOB", "1"}}));  // sbatch/salloc/srun with --pacml-*
  EXPECT_FALSE(step({{"PACML_JOB", "1"}, {"PACML_DECISION", "d"}}));  // has its plan
}

TEST(SpankStep, PlugstackArgumentsSetTheLimits) {
  GraphLimits limits;
  const char* args[] = {"max_graph_bytes=4096", "max_graph_ops=10", "max_graph_edges=20"};
  parse_spank_args(3, const_cast<char**>(args), limits);
  EXPECT_EQ(limits.max_bytes, 4096);
  EXPECT_EQ(limits.max_ops, 10);
  EXPECT_EQ(limits.max_edges, 20);
  const char* bad[] = {"max_graph_ops=-1"};
  EXPECT_NE(error_of([&] {
              parse_spank_args(1, const_cast<char**>(bad), limits);
            }).find("plugstack.conf: max_graph_ops must be a positive integer, got '-1'"),
            std::string::npos);
  const char* unknown[] = {"graph_dirs=/x"};
  EXPECT_NE(error_of([&] {
              parse_spank_args(1, const_cast<char**>(unknown), limits);
            }).find("unknown argument 'graph_dirs=/x'"),
            std::string::npos);
}

}  // namespace
}  // namespace pacml::plugin
