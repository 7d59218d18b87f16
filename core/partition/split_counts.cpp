#include "core/partition/split_counts.h"

#include <algorithm>
#include <cmath>

#include "core/util/error.h"

namespace pacml {

bool is_valid_action(int action) {
  return action == 0 || action == 1 || (action > 1 && action % 2 == 0);
}

void check_action(int action, int max_action, const std::string& where) {
  if (action < 0 || action > max_action || !is_valid_action(action))
    throw InputError(where, "invalid action " + std::to_string(action) +
                                ": use 0, 1 or an even number up to " + std::to_string(max_action));
}

int split_count(double compute, int action, double quantum) {
  // Written exactly as the reference computes it, so float rounding agrees.
  double quanta = std::ceil(compute / quantum);
  double even = 2 * std::ceil(quanta / 2);
  return static_cast<int>(std::max(1.0, std::min(even, static_cast<double>(action))));
}

std::vector<int> split_counts(const LayerGraph& graph, int action, double quantum) {
  std::vector<int> splits(graph.num_layers());
  for (int i = 0; i < graph.num_layers(); ++i)
    splits[i] = split_count(graph.layers[i].forward_time, action, quantum);
  return splits;
}

int split_degree(const std::vector<int>& splits) {
  return splits.empty() ? 0 : *std::max_element(splits.begin(), splits.end());
}

std::map<int, int> split_histogram(const std::vector<int>& splits) {
  std::map<int, int> histogram;
  for (int k : splits) ++histogram[k];
  return histogram;
}

}  // namespace pacml
