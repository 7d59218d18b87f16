// Which actions a policy may choose (doc/MODEL.md §4).
#pragma once

#include <vector>

#include "core/cluster/cluster_state.h"

namespace pacml {

// mask[a] for a = 0..max_action: 0 always; 1 if a server is free; even a if
// a ≤ free servers and a block shape for a fits the topology. The mask does
// not promise that a free block exists (fragmentation can still fail placement).
std::vector<bool> action_mask(const ClusterState& cluster, int max_action);

// The valid actions, ascending (always contains 0).
std::vector<int> valid_actions(const std::vector<bool>& mask);

}  // namespace pacml
