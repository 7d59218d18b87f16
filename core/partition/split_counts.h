// How many ways each op is split for an action (doc/MODEL.md §3.1, SiP-ML style).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/graph/layer_graph.h"

namespace pacml {

constexpr int kMaxAction = 16;  // the paper's action space is {0, 1, ..., 16}

// a = 0 (decline), a = 1 (no split) and even a ≥ 2 are actions; odd a > 1 are not.
bool is_valid_action(int action);
// Throws InputError(where, ...) unless is_valid_action(action) and action ≤ max.
void check_action(int action, int max_action, const std::string& where);

// k for one op with compute c: max(1, min(2·ceil(ceil(c/q)/2), a)).
int split_count(double compute, int action, double quantum);

// k per layer (the backward op shares its forward op's k). action ≥ 1.
std::vector<int> split_counts(const LayerGraph& graph, int action, double quantum);

// The job's degree: the largest k.
int split_degree(const std::vector<int>& splits);

// {k: number of layers split k ways}.
std::map<int, int> split_histogram(const std::vector<int>& splits);

}  // namespace pacml
