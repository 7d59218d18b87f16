#include "core/placement/block_shapes.h"

#include <algorithm>
#include <cmath>

namespace pacml {
namespace {

int exact_sqrt(int x) {
  int r = static_cast<int>(std::lround(std::sqrt(static_cast<double>(x))));
  return r * r == x ? r : -1;
}

void add_unique(std::vector<BlockShape>& shapes, BlockShape shape) {
  if (std::find(shapes.begin(), shapes.end(), shape) == shapes.end()) shapes.push_back(shape);
}

}  // namespace

std::vector<BlockShape> candidate_shapes(int s, const RampTopology& t) {
  std::vector<BlockShape> shapes;
  if (s < 1) return shapes;
  const int C = t.groups(), R = t.racks(), S = t.servers_per_rack();
  for (int i = 1; i <= s; ++i) {
    if (s % i != 0) continue;
    const int q = s / i;
    const int root = exact_sqrt(q);
    if (root > 0 && root <= C && root <= R && i <= S) add_unique(shapes, {root, root, i, false});
    if (q <= C && q <= R && i <= S) {
      add_unique(shapes, {q, 1, i, false});
      add_unique(shapes, {q, i, 1, false});
    }
  }
  add_unique(shapes, {s, s, -1, true});
  add_unique(shapes, {s, 1, 1, false});
  return shapes;
}

bool has_block_shape(int s, const RampTopology& t) {
  std::vector<int> buffer;
  for (const BlockShape& shape : candidate_shapes(s, t))
    if (for_each_block(shape, s, t, buffer, [](const std::vector<int>&) { return true; }))
      return true;
  return false;
}

}  // namespace pacml
