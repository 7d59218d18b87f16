// Aggregating episodes over seeds: mean and 95% confidence interval per
// (policy, β distribution), and the JSON forms used by --json, shards and
// --merge.
//
// CI: half-width t(0.975, n−1) · s / √n with s the sample standard deviation
// (Student's t; 0 for a single seed).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/engine/environment.h"

namespace pacml::sim {

struct Stat {
  double mean = 0, ci95 = 0, sd = 0;
};
Stat summarize_values(const std::vector<double>& values);
// Two-sided 95% Student t quantile for `dof` degrees of freedom.
double t_quantile_975(int dof);

struct GroupSummary {
  std::string policy, beta_dist;
  int seeds = 0;
  double arrived = 0, decisions = 0;  // means
  Stat blocking_rate, acceptance_rate, throughput, mean_jct, mean_speedup, mean_occupancy,
      mean_servers;
  // Blocking by cause, as fractions of arrived jobs.
  Stat declined, no_placement, deadline, running_at_horizon;
  Stat gpu_hours;
};

// Groups by (policy, beta_dist) in order of first appearance.
std::vector<GroupSummary> summarize(const std::vector<EpisodeStats>& episodes);

nlohmann::json episode_to_json(const EpisodeStats& s);
// Throws InputError(where, ...) when a field is missing or has the wrong type.
EpisodeStats episode_from_json(const nlohmann::json& j, const std::string& where);
nlohmann::json summary_to_json(const GroupSummary& g);

}  // namespace pacml::sim
