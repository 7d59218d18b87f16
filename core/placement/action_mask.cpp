#include "core/placement/action_mask.h"

#include "core/placement/block_shapes.h"

namespace pacml {

std::vector<bool> action_mask(const ClusterState& cluster, int max_action) {
  std::vector<bool> mask(max_action + 1, false);
  mask[0] = true;
  const int free = cluster.free_servers();
  if (max_action >= 1) mask[1] = free >= 1;
  for (int a = 2; a <= max_action; a += 2)
    mask[a] = a <= free && has_block_shape(a, cluster.topology());
  return mask;
}

std::vector<int> valid_actions(const std::vector<bool>& mask) {
  std::vector<int> actions;
  for (int a = 0; a < static_cast<int>(mask.size()); ++a)
    if (mask[a]) actions.push_back(a);
  return actions;
}

}  // namespace pacml
