// Small statistics over samples, shared by the calibration, table
// extraction and workload fitting.
#pragma once

#include <algorithm>
#include <vector>

namespace pacml {

// The q-quantile (0..1) with linear interpolation; `values` must not be empty.
inline double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const size_t low = static_cast<size_t>(position);
  const size_t high = std::min(low + 1, values.size() - 1);
  return values[low] + (position - low) * (values[high] - values[low]);
}

inline double median(std::vector<double> values) {
  return quantile(std::move(values), 0.5);
}

}  // namespace pacml
