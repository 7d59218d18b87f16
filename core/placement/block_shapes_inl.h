// Template body of for_each_block (included by block_shapes.h).
#pragma once

namespace pacml {

template <class Visit>
bool for_each_block(const BlockShape& shape, int s, const RampTopology& t, std::vector<int>& buffer,
                    Visit&& visit) {
  const int C = t.groups(), R = t.racks(), S = t.servers_per_rack();
  const int span_c = shape.diagonal ? s : shape.groups;
  const int span_r = shape.diagonal ? s : shape.racks;
  const int span_s = shape.diagonal ? 1 : shape.servers;
  for (int i = 0; i <= C - span_c; ++i)
    for (int j = 0; j <= R - span_r; ++j)
      for (int k = 0; k <= S - span_s; ++k) {
        buffer.clear();
        if (shape.diagonal) {
          for (int m = 0; m < s; ++m) buffer.push_back(t.index(i + m, j + m, k));
        } else {
          for (int c = 0; c < shape.groups; ++c)
            for (int r = 0; r < shape.racks; ++r)
              for (int x = 0; x < shape.servers; ++x)
                buffer.push_back(t.index(i + c, j + r, k + x));
        }
        if (visit(buffer)) return true;
      }
  return false;
}

}  // namespace pacml
