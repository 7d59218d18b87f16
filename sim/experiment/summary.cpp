#include "sim/experiment/summary.h"

#include <cmath>
#include <map>
#include <type_traits>
#include <variant>

#include "core/util/error.h"
#include "sim/engine/episode_fields.h"

namespace pacml::sim {

double t_quantile_975(int dof) {
  static const double table[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
                                 2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
                                 2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
                                 2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof < 1) return 0;
  if (dof <= 30) return table[dof];
  if (dof <= 60) return 2.000 + (2.042 - 2.000) * (60.0 - dof) / 30.0;
  if (dof <= 120) return 1.980 + (2.000 - 1.980) * (120.0 - dof) / 60.0;
  return 1.960;
}

Stat summarize_values(const std::vector<double>& values) {
  Stat s;
  if (values.empty()) return s;
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / values.size();
  if (values.size() < 2) return s;
  double squares = 0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.sd = std::sqrt(squares / (values.size() - 1));
  s.ci95 = t_quantile_975(static_cast<int>(values.size()) - 1) * s.sd /
           std::sqrt(static_cast<double>(values.size()));
  return s;
}

std::vector<GroupSummary> summarize(const std::vector<EpisodeStats>& episodes) {
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::vector<const EpisodeStats*>> groups;
  for (const EpisodeStats& e : episodes) {
    auto key = std::make_pair(e.policy, e.beta_dist);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&e);
  }
  std::vector<GroupSummary> out;
  for (const auto& key : order) {
    const auto& list = groups[key];
    GroupSummary g;
    g.policy = key.first;
    g.beta_dist = key.second;
    g.seeds = static_cast<int>(list.size());
    auto stat = [&](auto field) {
      std::vector<double> values;
      for (const EpisodeStats* e : list) values.push_back(field(*e));
      return summarize_values(values);
    };
    auto rate = [](long n, long d) { return d ? static_cast<double>(n) / d : 0.0; };
    g.arrived = stat([](const EpisodeStats& e) { return static_cast<double>(e.arrived); }).mean;
    g.decisions = stat([](const EpisodeStats& e) { return static_cast<double>(e.decisions); }).mean;
    g.blocking_rate = stat([](const EpisodeStats& e) { return e.blocking_rate; });
    g.acceptance_rate = stat([](const EpisodeStats& e) { return e.acceptance_rate; });
    g.throughput = stat([](const EpisodeStats& e) { return e.throughput; });
    g.mean_jct = stat([](const EpisodeStats& e) { return e.mean_jct; });
    g.mean_speedup = stat([](const EpisodeStats& e) { return e.mean_speedup; });
    g.mean_occupancy = stat([](const EpisodeStats& e) { return e.mean_occupancy; });
    g.mean_servers = stat([](const EpisodeStats& e) { return e.mean_servers; });
    g.declined = stat([&](const EpisodeStats& e) { return rate(e.declined, e.arrived); });
    g.no_placement = stat([&](const EpisodeStats& e) { return rate(e.no_placement, e.arrived); });
    g.deadline = stat([&](const EpisodeStats& e) { return rate(e.deadline, e.arrived); });
    g.running_at_horizon =
        stat([&](const EpisodeStats& e) { return rate(e.running_at_horizon, e.arrived); });
    g.gpu_hours = stat([](const EpisodeStats& e) { return e.gpu_hours; });
    out.push_back(std::move(g));
  }
  return out;
}

nlohmann::json episode_to_json(const EpisodeStats& s) {
  nlohmann::json j;
  for (const EpisodeField& field : episode_fields())
    std::visit([&](auto member) { j[field.name] = s.*member; }, field.member);
  return j;
}

EpisodeStats episode_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where, "an episode must be a JSON object");
  EpisodeStats s;
  try {
    for (const EpisodeField& field : episode_fields())
      std::visit(
          [&](auto member) {
            using Value = std::decay_t<decltype(s.*member)>;
            s.*member = field.required_in_json ? j.at(field.name).get<Value>()
                                               : j.value(field.name, Value{});
          },
          field.member);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(where, std::string("bad episode record: ") + e.what());
  }
  return s;
}

nlohmann::json summary_to_json(const GroupSummary& g) {
  nlohmann::json j;
  j["policy"] = g.policy;
  j["beta_dist"] = g.beta_dist;
  j["seeds"] = g.seeds;
  j["arrived_mean"] = g.arrived;
  j["decisions_mean"] = g.decisions;
  auto put = [&](const char* name, const Stat& s) {
    j[std::string(name) + "_mean"] = s.mean;
    j[std::string(name) + "_ci95"] = s.ci95;
  };
  put("blocking_rate", g.blocking_rate);
  put("acceptance_rate", g.acceptance_rate);
  put("throughput", g.throughput);
  put("mean_jct", g.mean_jct);
  put("mean_speedup", g.mean_speedup);
  put("mean_occupancy", g.mean_occupancy);
  put("mean_servers", g.mean_servers);
  put("blocked_declined_rate", g.declined);
  put("blocked_no_placement_rate", g.no_placement);
  put("blocked_deadline_rate", g.deadline);
  put("blocked_running_at_horizon_rate", g.running_at_horizon);
  // The GPU experiments' keys (sim/gpu/evaluation.h), as they read in the paper's
  // world: an accepted job always meets its deadline, and nothing waits.
  put("deadline_met_rate",
      Stat{1 - g.blocking_rate.mean, g.blocking_rate.ci95, g.blocking_rate.sd});
  put("gpu_hours", g.gpu_hours);
  j["queue_delay_mean"] = 0.0;
  j["queue_delay_ci95"] = 0.0;
  j["unservable_rate_mean"] = nullptr;  // the experiment's bound (--bound) fills it in
  j["unservable_rate_ci95"] = nullptr;
  return j;
}

}  // namespace pacml::sim
