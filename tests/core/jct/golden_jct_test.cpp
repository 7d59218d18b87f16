// doc/MODEL.md §9: the 30 golden JCTs of the reference profile, split histograms,
// partitioned sizes and the resnet18 a=1, β=1 rounding block. One job on an
// empty 4x4x2 RAMP cluster, β = 1, N = 50.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "core/graph/pipedream_reader.h"
#include "core/jct/estimator.h"
#include "core/partition/partitioned_graph.h"
#include "core/partition/split_counts.h"
#include "tests/test_data.h"

namespace pacml {
namespace {

struct Golden {
  const char* model;
  int action;
  double jct;
  int servers;  // 0 = not checked
};

const Golden kGolden[] = {
    {"alexnet", 1, 36061.15, 1},
    {"alexnet", 2, 18031.033232573976, 2},
    {"alexnet", 4, 9015.954265992597, 4},
    {"alexnet", 6, 6010.879144446654, 6},
    {"alexnet", 8, 4508.410099262296, 8},
    {"alexnet", 16, 2254.7583303838487, 16},
    {"resnet18", 1, 36668.35000000003, 1},
    {"resnet18", 2, 18336.335131766933, 2},
    {"resnet18", 4, 9170.042618411007, 4},
    {"resnet18", 6, 6114.393421110735, 6},
    {"resnet18", 8, 4586.861410531305, 8},
    {"resnet18", 16, 2295.8188240718487, 16},
    {"squeezenet1_0", 1, 38000.15, 1},
    {"squeezenet1_0", 2, 19002.77634860396, 2},
    {"squeezenet1_0", 4, 9503.329382258798, 4},
    {"squeezenet1_0", 6, 6336.607265006724, 6},
    {"squeezenet1_0", 8, 4753.546723967389, 8},
    {"squeezenet1_0", 16, 2379.1974530241046, 16},
    {"vgg16", 1, 34525.35, 1},
    {"vgg16", 2, 17267.730385485993, 2},
    {"vgg16", 4, 8638.717773931807, 4},
    {"vgg16", 6, 5761.844361728047, 6},
    {"vgg16", 8, 4324.161850787906, 8},
    {"vgg16", 16, 2168.2359941830496, 16},
    {"gnmt", 1, 4470.8, 1},
    {"gnmt", 2, 2235.5691117880015, 2},
    {"gnmt", 4, 1117.9241980848012, 4},
    {"gnmt", 6, 745.357795240792, 6},
    {"gnmt", 8, 560.4828908648002, 10},
    {"gnmt", 16, 308.3905238931998, 21},
};

class GoldenJct : public ::testing::TestWithParam<Golden> {};

JctEstimator reference_estimator() {
  return JctEstimator(RampTopology::parse("4x4x2"), Profile::reference(), 50);
}

TEST_P(GoldenJct, MatchesReferenceSimulator) {
  const Golden& g = GetParam();
  const std::string path = testing::pipedream_path(g.model);
  PACML_REQUIRE_FILE(path);
  const JobGraph job(read_pipedream_file(path));
  const JctEstimator estimator = reference_estimator();
  const Estimate e = estimator.estimate(job, g.action, 1.0, ClusterState(estimator.topology()));
  ASSERT_TRUE(e.placed) << e.failure;
  EXPECT_LE(std::abs(e.jct - g.jct) / g.jct, 1e-6)
      << g.model << " a=" << g.action << " got " << e.jct;
  EXPECT_EQ(e.servers_used(), g.servers);
}

INSTANTIATE_TEST_SUITE_P(PaperGraphs, GoldenJct, ::testing::ValuesIn(kGolden),
                         [](const auto& info) {
                           return std::string(info.param.model) + "_a" +
                                  std::to_string(info.param.action);
                         });

TEST(GoldenJct, SequentialJctOfEachModel) {
  const std::map<std::string, double> jct_seq = {{"alexnet", 36061.15},
                                                 {"resnet18", 36668.35},
                                                 {"squeezenet1_0", 38000.15},
                                                 {"vgg16", 34525.35},
                                                 {"gnmt", 4470.80}};
  const JctEstimator estimator = reference_estimator();
  for (const auto& [model, expected] : jct_seq) {
    const std::string path = testing::pipedream_path(model);
    PACML_REQUIRE_FILE(path);
    const JobGraph job(read_pipedream_file(path));
    EXPECT_NEAR(estimator.sequential_jct(job), expected, 1e-6) << model;
  }
}

TEST(GoldenJct, GraphSizesOfTheStepGraph) {
  struct Sizes {
    const char* model;
    int layers, edges, step_ops, step_deps, partitioned_ops, partitioned_deps;
  };
  const Sizes sizes[] = {{"alexnet", 23, 23, 46, 47, 616, 13172},
                         {"resnet18", 71, 79, 142, 159, 1972, 41874},
                         {"squeezenet1_0", 68, 76, 136, 153, 1846, 39093},
                         {"vgg16", 41, 41, 82, 83, 1192, 26258},
                         {"gnmt", 48, 58, 96, 117, 466, 5292}};
  for (const Sizes& s : sizes) {
    const std::string path = testing::pipedream_path(s.model);
    PACML_REQUIRE_FILE(path);
    const JobGraph job(read_pipedream_file(path));
    EXPECT_EQ(job.layers().num_layers(), s.layers) << s.model;
    EXPECT_EQ(job.layers().num_edges(), s.edges) << s.model;
    EXPECT_EQ(job.step().num_ops(), s.step_ops) << s.model;
    EXPECT_EQ(job.step().num_deps(), s.step_deps) << s.model;
    const PartitionedGraph graph(job.step(), split_counts(job.layers(), 16, 0.01),
                                 EdgeSizeRule::kReference);
    EXPECT_EQ(graph.num_ops(), s.partitioned_ops) << s.model;
    EXPECT_EQ(graph.num_deps(), s.partitioned_deps) << s.model;
  }
}

TEST(GoldenJct, CnnSplitHistogramsGiveEveryComputingOpExactlyA) {
  for (const char* model : {"alexnet", "resnet18", "squeezenet1_0", "vgg16"}) {
    const std::string path = testing::pipedream_path(model);
    PACML_REQUIRE_FILE(path);
    const LayerGraph graph = read_pipedream_file(path);
    for (int a : {2, 4, 6, 8, 16}) {
      const std::vector<int> splits = split_counts(graph, a, 0.01);
      for (int i = 0; i < graph.num_layers(); ++i)
        EXPECT_EQ(splits[i], graph.layers[i].forward_time > 0 ? a : 1)
            << model << " layer " << i << " a=" << a;
    }
  }
}

TEST(GoldenJct, GnmtSplitHistograms) {
  const std::string path = testing::pipedream_path("gnmt");
  PACML_REQUIRE_FILE(path);
  const LayerGraph graph = read_pipedream_file(path);
  EXPECT_EQ(split_histogram(split_counts(graph, 8, 0.01)),
            (std::map<int, int>{{1, 31}, {6, 3}, {8, 14}}));
  EXPECT_EQ(split_histogram(split_counts(graph, 16, 0.01)),
            (std::map<int, int>{{1, 31}, {6, 3}, {8, 5}, {16, 9}}));
}

TEST(GoldenJct, Resnet18AtOneWorkerIsBlockedByRoundingInReferenceOnly) {
  const std::string path = testing::pipedream_path("resnet18");
  PACML_REQUIRE_FILE(path);
  const JobGraph job(read_pipedream_file(path));
  const RampTopology topology = RampTopology::parse("4x4x2");
  const ClusterState empty(topology);
  const Estimate reference =
      JctEstimator(topology, Profile::reference()).estimate(job, 1, 1.0, empty);
  EXPECT_EQ(reference.jct, 36668.35000000003);
  EXPECT_GT(reference.jct, reference.jct_max);
  EXPECT_EQ(reference.blocked, BlockCause::kDeadline);
  // The physical profile compares without being fooled by summation order.
  const Estimate physical =
      JctEstimator(topology, Profile::physical()).estimate(job, 1, 1.0, empty);
  EXPECT_TRUE(physical.accepted());
  // Other models at a = 1, β = 1 are accepted in the reference profile too.
  for (const char* model : {"alexnet", "vgg16", "gnmt"}) {
    PACML_REQUIRE_FILE(testing::pipedream_path(model));
    const JobGraph other(read_pipedream_file(testing::pipedream_path(model)));
    EXPECT_TRUE(
        JctEstimator(topology, Profile::reference()).estimate(other, 1, 1.0, empty).accepted())
        << model;
  }
}

}  // namespace
}  // namespace pacml
