// doc/MODEL.md §5: the eight golden RAMP collective times and one-to-one transfers.
#include <gtest/gtest.h>

#include <cmath>

#include "core/comm/ramp_collective.h"

namespace pacml {
namespace {

struct GoldenCollective {
  double msg;
  int ids, racks, cgs;
  double expected;
};

TEST(RampCollective, GoldenValues) {
  const RampTopology topology = RampTopology::parse("4x4x2");  // x = 4, BW = 4e11
  const GoldenCollective golden[] = {
      {1e6, 1, 1, 2, 3.75e-06},    {1e6, 2, 1, 1, 0},
      {1e6, 1, 2, 2, 5.875e-06},   {1e8, 2, 4, 4, 7.155625e-04},
      {1e8, 1, 4, 4, 7.04125e-04}, {1e8, 2, 2, 2, 5.7025e-04},
      {6e6, 1, 1, 4, 3.425e-05},   {6e6, 2, 3, 3, 3.6000008e-05},
  };
  for (const auto& g : golden) {
    CollectiveSpan span{g.msg, g.cgs, g.racks, g.ids, /*servers=*/2};
    const double t = collective_time(span, topology);
    if (g.expected == 0) {
      EXPECT_EQ(t, 0) << g.msg;
    } else {
      EXPECT_NEAR(t / g.expected, 1.0, 1e-9) << "msg " << g.msg << " ids " << g.ids << " racks "
                                             << g.racks << " cgs " << g.cgs << " got " << t;
    }
  }
}

TEST(RampCollective, OneServerCostsNothing) {
  const RampTopology topology = RampTopology::parse("4x4x2");
  EXPECT_EQ(collective_time({1e9, 1, 1, 1, 1}, topology), 0);
}

TEST(RampCollective, OneToOneIsLatencyPlusSerialisation) {
  const RampTopology topology = RampTopology::parse("4x4x2");
  // 50 ns propagation + 2 x 100 ns I/O + 4e11 bytes at 4e11 B/s.
  EXPECT_DOUBLE_EQ(one_to_one_time(4e11, topology), 250e-9 + 1.0);
}

}  // namespace
}  // namespace pacml
