// RAMP topology strings ("4x4x2", --topology): core/cluster/ramp_topology.h.
// A topology that parses must give a usable cluster.
#include "core/cluster/cluster_state.h"
#include "core/cluster/ramp_topology.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_topology(const std::string& input) {
  const pacml::RampTopology topology = pacml::RampTopology::parse(input);
  PACML_FUZZ_CHECK(topology.num_servers() >= 1 && topology.racks() <= topology.groups(),
                   "a valid RAMP shape");
  if (topology.num_servers() > 4096) return;  // valid, but too big to build per input
  const pacml::ClusterState cluster(topology);
  (void)cluster;
}
PACML_FUZZ_TARGET("topology", fuzz_topology);
