// The cluster description (core/cluster/cluster_spec.h): presets, the file
// grammar and its errors.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/cluster/cluster_presets.h"
#include "core/cluster/cluster_spec.h"
#include "core/cluster/topology_yaml.h"
#include "core/parallel/physical_estimator.h"
#include "core/util/error.h"
#include "tests/test_data.h"

namespace pacml {
namespace {

ClusterSpec parse(const std::string& text) {
  std::istringstream in(text);
  return load_cluster_spec(in, "test.yaml");
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

const std::string kFabric =
    "pacml_cluster: 1\nnetwork: fabric\nservers: 4\ngpus_per_server: 8\n"
    "intra_server_bandwidth: 300e9\nserver_bandwidth: 200e9\n";

TEST(ClusterSpec, PresetsMatchTheirFilesInContrib) {
  for (const std::string& name : cluster_preset_names()) {
    const std::string path = std::string(PACML_SOURCE_DIR) + "/contrib/clusters/" + name + ".yaml";
    std::ifstream file(path);
    ASSERT_TRUE(file) << path;
    std::stringstream text;
    text << file.rdbuf();
    EXPECT_EQ(text.str(), cluster_preset_text(name)) << name;
  }
  EXPECT_EQ(cluster_preset_names().size(), 8u);
}

TEST(ClusterSpec, EveryPresetLoadsWithItsDevice) {
  for (const std::string& name : cluster_preset_names()) {
    const ClusterSpec c = load_cluster(name);
    EXPECT_GT(c.num_gpus(), 0) << name;
    EXPECT_EQ(c.device.memory_bytes, c.gpu_memory) << name;
  }
}

// Today's DGX servers (contrib/clusters/dgx-*-4x8.yaml cite each figure):
// NVLink per GPU per direction, 8 x 400 Gb/s NDR out of each server.
TEST(ClusterSpec, DgxPresetsOfTodaysGpus) {
  struct Case {
    const char *preset, *device;
    double memory, nvlink;
  };
  const Case cases[] = {{"dgx-h100-4x8", "H100-SXM5-80GB", 80e9, 450e9},
                        {"dgx-h200-4x8", "H200-141GB", 141e9, 450e9},
                        {"dgx-b200-4x8", "B200-180GB", 180e9, 900e9}};
  for (const Case& c : cases) {
    const ClusterSpec spec = load_cluster(c.preset);
    EXPECT_EQ(spec.network, NetworkKind::kFabric) << c.preset;
    EXPECT_EQ(spec.num_gpus(), 32) << c.preset;
    EXPECT_EQ(spec.gpus_per_server, 8) << c.preset;
    EXPECT_EQ(spec.device.name, c.device) << c.preset;
    EXPECT_DOUBLE_EQ(spec.gpu_memory, c.memory) << c.preset;
    EXPECT_DOUBLE_EQ(spec.intra_server_bandwidth, c.nvlink) << c.preset;
    EXPECT_DOUBLE_EQ(spec.server_bandwidth, 400e9) << c.preset;  // 8 x 400 Gb/s
  }
}

// The host's cost comes from the cluster's device (doc/PHYSICAL.md §9):
// ElasticFlow's testbed keeps its fitted values, today's GPUs get PyTorch 2's.
TEST(ClusterSpec, TheEstimatorTakesTheHostFromTheClustersDevice) {
  const auto host_of = [](const std::string& preset) {
    return PhysicalEstimator(load_cluster(preset)).constants();
  };
  const HostCost fitted = HostCost::elasticflow_2021();
  const HostCost pytorch2 = HostCost::pytorch2_eager();
  for (const char* preset : {"dgx-a100-4x8", "dgx-a100-16x8", "ramp-a100-16x8", "dgx2-v100"}) {
    EXPECT_EQ(host_of(preset).host_per_op, fitted.per_op) << preset;
    EXPECT_EQ(host_of(preset).host_per_step, fitted.per_step) << preset;
  }
  EXPECT_EQ(host_of("dgx-a100-4x8").host_time_per_op(ModelFamily::kTransformer), 120e-6);
  EXPECT_EQ(
      PhysicalEstimator(ClusterSpec::paper(RampTopology::parse("4x4x2"))).constants().host_per_step,
      20e-3);
  for (const char* preset : {"dgx-h100-4x8", "dgx-h200-4x8", "dgx-b200-4x8"}) {
    EXPECT_EQ(host_of(preset).host_per_op, pytorch2.per_op) << preset;
    EXPECT_EQ(host_of(preset).host_per_step, pytorch2.per_step) << preset;
  }
  // The rest of the constants are the ones given.
  PhysicalConstants given = PhysicalConstants::calibrated();
  given.collective_overhead = 7e-6;
  EXPECT_EQ(PhysicalEstimator(load_cluster("dgx-h200-4x8"), given).constants().collective_overhead,
            7e-6);
}

TEST(ClusterSpec, DgxPresetIsElasticFlowsTestbed) {
  const ClusterSpec c = load_cluster("dgx-a100-16x8");
  EXPECT_EQ(c.network, NetworkKind::kFabric);
  EXPECT_EQ(c.num_servers(), 16);
  EXPECT_EQ(c.gpus_per_server, 8);
  EXPECT_EQ(c.num_gpus(), 128);
  EXPECT_DOUBLE_EQ(c.server_bandwidth, 200e9);  // 8 x 200 Gb/s
  EXPECT_DOUBLE_EQ(c.gpu_memory, 80e9);
  EXPECT_EQ(c.device.name, "A100-SXM4-80GB");
  const ClusterSpec v = load_cluster("dgx2-v100.yaml");
  EXPECT_EQ(v.gpus_per_server, 16);
  EXPECT_DOUBLE_EQ(v.gpu_memory, 32e9);
  EXPECT_EQ(v.device.name, "V100-SXM2-16GB");
}

TEST(ClusterSpec, PaperPresetIsTheTopologyShorthand) {
  const ClusterSpec file = load_cluster("paper-4x4x2");
  const ClusterSpec shorthand = ClusterSpec::paper(RampTopology::parse("4x4x2"));
  EXPECT_EQ(file.network, NetworkKind::kRamp);
  EXPECT_EQ(file.num_gpus(), 32);
  EXPECT_EQ(file.topology().shape(), shorthand.topology().shape());
  EXPECT_DOUBLE_EQ(file.server_bandwidth, shorthand.server_bandwidth);
  EXPECT_DOUBLE_EQ(file.network_latency, shorthand.network_latency);
  EXPECT_DOUBLE_EQ(file.gpu_memory, shorthand.gpu_memory);
}

TEST(ClusterSpec, ReadsAFabricFile) {
  const ClusterSpec c = parse(kFabric);
  EXPECT_EQ(c.num_gpus(), 32);
  EXPECT_EQ(c.summary(), "fabric 4 servers x 8 GPUs (A100-SXM4-80GB)");
}

TEST(ClusterSpec, RejectsBadFilesNamingTheLine) {
  EXPECT_EQ(error_of(kFabric + "nics: 8\n"),
            "test.yaml:7: unknown cluster key 'nics'; known: pacml_cluster, name, network, "
            "servers, gpus_per_server, device, gpu_memory, server_bandwidth, network_latency, "
            "intra_server_bandwidth, intra_server_latency");
  // 200 Gb/s written as if it were bytes/s: a unit slip.
  EXPECT_NE(error_of(kFabric + "network_latency: 5\n")
                .find("test.yaml:7: network_latency = 5 is "
                      "outside the plausible range [0, 0.01] seconds"),
            std::string::npos);
  EXPECT_NE(error_of("pacml_cluster: 1\nnetwork: fabric\nservers: 4\nserver_bandwidth: 200\n")
                .find("test.yaml:4: server_bandwidth = 200 is outside"),
            std::string::npos);
  EXPECT_NE(error_of("pacml_cluster: 1\nnetwork: fabric\nservers: 0\n").find("test.yaml:3"),
            std::string::npos);
  EXPECT_NE(error_of("pacml_cluster: 1\nnetwork: fabric\nservers: 2\ngpus_per_server: 8\n")
                .find("needs 'intra_server_bandwidth'"),
            std::string::npos);
  EXPECT_NE(
      error_of("pacml_cluster: 1\nnetwork: fabric\nshape: 4x4x2\n")
          .find("test.yaml:3: 'shape' applies only with network: ramp, not with network: fabric"),
      std::string::npos);
  EXPECT_NE(error_of("pacml_cluster: 1\nnetwork: ramp\nshape: 2x4x1\n").find("R=4"),
            std::string::npos);
  EXPECT_NE(error_of("pacml_cluster: 1\nnetwork: token-ring\n").find("test.yaml:2"),
            std::string::npos);
  EXPECT_NE(error_of("network: fabric\nservers: 2\n").find("pacml_cluster: 1"), std::string::npos);
  EXPECT_NE(error_of(kFabric + "device: tpu-v9\n").find("test.yaml:7: device 'tpu-v9'"),
            std::string::npos);
  // The message lists the built-in devices, the files of contrib/devices.
  EXPECT_NE(error_of(kFabric + "device: tpu-v9\n")
                .find("is neither built in (a100, a100-40gb, b200, gh200, h100-sxm, h200, l40s, "
                      "mi300x, v100) nor a readable device file"),
            std::string::npos);
  EXPECT_NE(error_of("pacml_cluster: 1\nnetwork: [fabric\n").find("test.yaml"), std::string::npos);
}

// Every key of the cluster table that applies with `network`, whose
// default is one value (not words like "the file name"), at that default.
std::string documented_defaults(const std::string& network) {
  std::string text;
  for (const SettingKey& k : cluster_settings().keys())
    if (!k.default_text.empty() && k.default_text.find(' ') == std::string::npos &&
        (k.only_when.empty() || k.only_when == "network: " + network))
      text += k.name + ": \"" + k.default_text + "\"\n";
  return text;
}

// Each key is bound to its member and documents the member's initial value as
// its default: a file that writes every key at its documented default reads
// back as a default-built ClusterSpec.
TEST(ClusterSpec, EachKeysDocumentedDefaultIsItsMembersValue) {
  const ClusterSpec d;
  const std::string fabric_text = documented_defaults("fabric");
  EXPECT_NE(fabric_text.find("network_latency: \"150e-9\""), std::string::npos) << fabric_text;
  const ClusterSpec fabric = parse("pacml_cluster: 1\nnetwork: fabric\nservers: 4\n" + fabric_text);
  EXPECT_EQ(fabric.gpus_per_server, d.gpus_per_server);
  EXPECT_EQ(fabric.device.name, d.device.name);
  EXPECT_EQ(fabric.gpu_memory, d.gpu_memory);
  EXPECT_EQ(fabric.server_bandwidth, d.server_bandwidth);
  EXPECT_EQ(fabric.network_latency, d.network_latency);
  EXPECT_EQ(fabric.intra_server_latency, d.intra_server_latency);
  const ClusterSpec ramp =
      parse("pacml_cluster: 1\nnetwork: ramp\nshape: 4x4x2\n" + documented_defaults("ramp"));
  EXPECT_EQ(ramp.ramp.propagation_latency, d.ramp.propagation_latency);
  EXPECT_EQ(ramp.ramp.io_latency, d.ramp.io_latency);
  EXPECT_EQ(ramp.server_bandwidth, d.server_bandwidth);
  EXPECT_EQ(ramp.intra_server_latency, d.intra_server_latency);
}

TEST(ClusterSpec, UnknownPresetOrFileIsAnError) {
  try {
    load_cluster("dgx-h100-99x8");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--cluster: 'dgx-h100-99x8' is neither"),
              std::string::npos);
  }
}

// Each key is bound to its RampParams member and documents the member's
// initial value: a topology that writes every key at its documented default
// reads back as a default-built RampParams (C, R and S alone document none:
// they stand instead of the shape).
TEST(TopologyYaml, EachKeysDocumentedDefaultIsItsMembersValue) {
  std::string text;
  for (const SettingKey& k : ramp_topology_settings().keys())
    if (!k.default_text.empty()) text += k.name + ": \"" + k.default_text + "\"\n";
  EXPECT_NE(text.find("propagation_latency: \"50e-9\""), std::string::npos) << text;
  const RampParams read = parse_ramp_topology(YAML::Load(text), "t.yaml"), d;
  EXPECT_EQ(RampTopology(read).shape(), RampTopology(d).shape());
  EXPECT_EQ(read.node_bandwidth, d.node_bandwidth);
  EXPECT_EQ(read.propagation_latency, d.propagation_latency);
  EXPECT_EQ(read.io_latency, d.io_latency);
  EXPECT_EQ(read.worker_memory, d.worker_memory);
}

TEST(TopologyYaml, OneGrammarForExperimentsAndPacmlConf) {
  auto parse_topology = [](const std::string& text) {
    return parse_ramp_topology(YAML::Load(text)["topology"], "t.yaml");
  };
  EXPECT_EQ(parse_topology("topology: 2x2x4").servers_per_rack, 4);
  const RampParams p = parse_topology(
      "topology: {shape: 4x2x2, node_bandwidth: 8e11, propagation_latency: 1e-7, worker_memory: "
      "40e9}");
  EXPECT_EQ(p.groups, 4);
  EXPECT_EQ(p.racks, 2);
  EXPECT_DOUBLE_EQ(p.node_bandwidth, 8e11);
  EXPECT_DOUBLE_EQ(p.propagation_latency, 1e-7);
  EXPECT_DOUBLE_EQ(p.worker_memory, 40e9);
  auto error_of = [&](const std::string& text) -> std::string {
    try {
      parse_topology(text);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_NE(error_of("topology: {node_bandwidth: 1600}").find("a unit slip"), std::string::npos);
  EXPECT_NE(error_of("topology: {wires: 3}").find("t.yaml:1: unknown topology key 'wires'"),
            std::string::npos);
  EXPECT_NE(error_of("topology: {groups: 2, racks: 4}").find("R=4"), std::string::npos);
  EXPECT_NE(error_of("topology: [4, 4, 2]").find("CxRxS or a mapping"), std::string::npos);
}

}  // namespace
}  // namespace pacml
