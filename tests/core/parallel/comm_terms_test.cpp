// The collectives' times against values computed by hand (issue 29;
// doc/PHYSICAL.md §4): one DGX H100 cluster file's links (NVLink 4 through
// NVSwitch, 450 GB/s a direction per GPU; 8 x 400 Gb/s NDR per server, 400
// GB/s; 3 µs and 6 µs a message) and the calibrated constants (NCCL's bus
// efficiency 0.2 inside a server, 0.45 across; 20 µs a call). So the
// effective rates are 90 GB/s inside a server and 180 GB/s out of it.
#include <gtest/gtest.h>

#include "core/cluster/cluster_spec.h"
#include "core/parallel/collectives.h"

namespace pacml {
namespace {

constexpr double kGB = 1e9;

CollectiveModel h100_collectives() {
  return CollectiveModel(load_cluster("dgx-h100-4x8", "test"), PhysicalConstants::calibrated());
}

TEST(CommTerms, TheClusterFileAndConstantsAreTheOnesTheHandValuesUse) {
  const ClusterSpec c = load_cluster("dgx-h100-4x8", "test");
  EXPECT_DOUBLE_EQ(c.intra_server_bandwidth, 450e9);
  EXPECT_DOUBLE_EQ(c.server_bandwidth, 400e9);
  EXPECT_DOUBLE_EQ(c.intra_server_latency, 3e-6);
  EXPECT_DOUBLE_EQ(c.network_latency, 6e-6);
  EXPECT_EQ(c.gpus_per_server, 8);
  const PhysicalConstants k = PhysicalConstants::calibrated();
  EXPECT_DOUBLE_EQ(k.bus_efficiency_intra, 0.2);
  EXPECT_DOUBLE_EQ(k.bus_efficiency_inter, 0.45);
  EXPECT_DOUBLE_EQ(k.collective_overhead, 20e-6);
}

TEST(CommTerms, AllReduceInsideOneServerIsTwoRingPasses) {
  // 20 µs + 2 x (7 x 3 µs + 1 GB x 7/8 / 90 GB/s) = 20 µs + 2 x 9.743 ms
  EXPECT_NEAR(h100_collectives().all_reduce(kGB, pack_gpus(8, 8)), 19.506444e-3, 1e-9);
  // 2 GPUs: 20 µs + 2 x (3 µs + 1 GB / 2 / 90 GB/s)
  EXPECT_NEAR(h100_collectives().all_reduce(kGB, pack_gpus(2, 8)), 11.137111e-3, 1e-9);
  EXPECT_EQ(h100_collectives().all_reduce(kGB, pack_gpus(1, 8)), 0);
}

TEST(CommTerms, AllReduceAcrossServersAddsTheNetworkRing) {
  // 2 servers x 8: the above + 2 x 6 µs + 2 x 1 GB x 1/2 / 180 GB/s
  EXPECT_NEAR(h100_collectives().all_reduce(kGB, pack_gpus(16, 8)), 25.074e-3, 1e-9);
  // 12 GPUs pack as 2 servers of 6: 20 µs + 2 x (5 x 3 µs + 1 GB x 5/6 / 90 GB/s)
  // + 5.567556 ms
  EXPECT_NEAR(h100_collectives().all_reduce(kGB, pack_gpus(12, 8)), 24.136074e-3, 1e-9);
  // 4 servers x 8: the network ring moves 2 x 3/4 of the data: 2 x 3 x 6 µs
  // + 1.5 GB / 180 GB/s = 8.369333 ms
  EXPECT_NEAR(h100_collectives().all_reduce(kGB, pack_gpus(32, 8)), 27.875778e-3, 1e-9);
}

TEST(CommTerms, AllGatherAndReduceScatterAreOneRingPass) {
  // 20 µs + 7 x 3 µs + 1 GB x 7/8 / 90 GB/s
  EXPECT_NEAR(h100_collectives().all_gather(kGB, pack_gpus(8, 8)), 9.763222e-3, 1e-9);
  EXPECT_NEAR(h100_collectives().reduce_scatter(kGB, pack_gpus(8, 8)), 9.763222e-3, 1e-9);
  // across 2 servers: + half the network ring (6 µs + 1 GB x 1/2 / 180 GB/s)
  EXPECT_NEAR(h100_collectives().all_gather(kGB, pack_gpus(16, 8)), 12.546999e-3, 1e-9);
}

TEST(CommTerms, SendsUseOneLinkOrOneGpusShareOfThePort) {
  // NVLink: 3 µs + 100 MB / 90 GB/s
  EXPECT_NEAR(h100_collectives().send(0.1 * kGB, false), 1.114111e-3, 1e-9);
  // network: 6 µs + 100 MB / (400 GB/s / 8 x 0.45 = 22.5 GB/s)
  EXPECT_NEAR(h100_collectives().send(0.1 * kGB, true), 4.450444e-3, 1e-9);
  EXPECT_EQ(h100_collectives().send(0, true), 0);
}

TEST(CommTerms, UnevenGroupsArePacedByTheFullestServer) {
  const GpuGroup g = pack_gpus(12, 8);
  EXPECT_EQ(g.servers, 2);
  EXPECT_EQ(g.per_server, 6);
  const GpuGroup h = pack_gpus(17, 8);
  EXPECT_EQ(h.servers, 3);
  EXPECT_EQ(h.per_server, 6);
}

}  // namespace
}  // namespace pacml
