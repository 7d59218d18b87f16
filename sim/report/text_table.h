// Plain-text tables for terminals: the evaluate summary (policy × β with mean
// ± 95% CI) and single-episode metrics.
#pragma once

#include <string>
#include <vector>

#include "sim/experiment/blocking_bound.h"
#include "sim/experiment/summary.h"

namespace pacml::sim {

// Columns padded to their widest cell; the first row is the header.
std::string format_table(const std::vector<std::vector<std::string>>& rows);

// Policy rows × β-distribution columns of "blocking mean ± ci", then a second
// table with throughput, acceptance, JCT, speed-up and blocking by cause.
std::string format_summary_tables(const std::vector<GroupSummary>& groups,
                                  const std::string& time_unit);

// One row of the lower bound per β distribution (`pacml evaluate --bound`).
std::string format_bound_table(const std::vector<BoundSummary>& bounds);

std::string format_episode(const EpisodeStats& s, const std::string& time_unit);

// "0.2607 ± 0.0031"
std::string mean_ci(const Stat& s, int decimals = 4);

}  // namespace pacml::sim
