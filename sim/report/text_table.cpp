#include "sim/report/text_table.h"
#include "core/util/numbers.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace pacml::sim {
namespace {

std::string fixed(double v, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  return buffer;
}

std::string general(double v) {
  return significant_number_text(v, 4);
}

// Display width of UTF-8 text (counts code points, enough for ± and →).
size_t width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

}  // namespace

std::string mean_ci(const Stat& s, int decimals) {
  return fixed(s.mean, decimals) + " ± " + fixed(s.ci95, decimals);
}

std::string format_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) {
      if (widths.size() <= i) widths.push_back(0);
      widths[i] = std::max(widths[i], width(row[i]));
    }
  std::ostringstream out;
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t i = 0; i < rows[r].size(); ++i) {
      out << rows[r][i];
      if (i + 1 < rows[r].size()) out << std::string(widths[i] - width(rows[r][i]) + 2, ' ');
    }
    out << '\n';
    if (r == 0) {
      size_t total = 0;
      for (size_t w : widths) total += w + 2;
      out << std::string(total > 2 ? total - 2 : total, '-') << '\n';
    }
  }
  return out.str();
}

std::string format_summary_tables(const std::vector<GroupSummary>& groups,
                                  const std::string& time_unit) {
  std::vector<std::string> policies, betas;
  std::map<std::pair<std::string, std::string>, const GroupSummary*> cell;
  int seeds_min = 1 << 30, seeds_max = 0;
  for (const GroupSummary& g : groups) {
    if (std::find(policies.begin(), policies.end(), g.policy) == policies.end())
      policies.push_back(g.policy);
    if (std::find(betas.begin(), betas.end(), g.beta_dist) == betas.end())
      betas.push_back(g.beta_dist);
    cell[{g.policy, g.beta_dist}] = &g;
    seeds_min = std::min(seeds_min, g.seeds);
    seeds_max = std::max(seeds_max, g.seeds);
  }
  std::ostringstream out;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"blocking rate"};
  for (const std::string& b : betas) header.push_back("β " + b);
  rows.push_back(header);
  for (const std::string& p : policies) {
    std::vector<std::string> row = {p};
    for (const std::string& b : betas) {
      auto it = cell.find({p, b});
      row.push_back(it == cell.end() ? "-" : mean_ci(it->second->blocking_rate));
    }
    rows.push_back(row);
  }
  out << format_table(rows);
  out << "(mean ± 95% CI over "
      << (seeds_min == seeds_max ? std::to_string(seeds_min)
                                 : std::to_string(seeds_min) + "–" + std::to_string(seeds_max))
      << " seeds)\n\n";
  rows.clear();
  rows.push_back({"policy", "β", "blocking", "declined", "no place", "deadline", "at horizon",
                  "throughput B/" + time_unit, "mean JCT " + time_unit, "speed-up", "servers",
                  "occupancy"});
  for (const GroupSummary& g : groups)
    rows.push_back({g.policy, g.beta_dist, fixed(g.blocking_rate.mean, 4),
                    fixed(g.declined.mean, 4), fixed(g.no_placement.mean, 4),
                    fixed(g.deadline.mean, 4), fixed(g.running_at_horizon.mean, 4),
                    general(g.throughput.mean), general(g.mean_jct.mean),
                    fixed(g.mean_speedup.mean, 2), fixed(g.mean_servers.mean, 2),
                    fixed(g.mean_occupancy.mean, 3)});
  out << format_table(rows);
  return out.str();
}

std::string format_bound_table(const std::vector<BoundSummary>& bounds) {
  std::vector<std::string> header = {"lower bound"}, row = {"unservable jobs"};
  for (const BoundSummary& b : bounds) {
    header.push_back("β " + b.beta_dist);
    row.push_back(mean_ci(b.rate));
  }
  return format_table({header, row}) +
         "(jobs no action serves even on an empty cluster: no policy blocks fewer)\n";
}

std::string format_episode(const EpisodeStats& s, const std::string& time_unit) {
  std::vector<std::vector<std::string>> rows = {{"metric", "value"}};
  auto add = [&](const std::string& k, const std::string& v) { rows.push_back({k, v}); };
  add("policy", s.policy);
  add("beta distribution", s.beta_dist);
  add("seed", std::to_string(s.seed));
  add("arrived", std::to_string(s.arrived));
  add("decisions", std::to_string(s.decisions));
  add("accepted", std::to_string(s.accepted));
  add("completed", std::to_string(s.completed));
  add("blocked", std::to_string(s.blocked) + " (declined " + std::to_string(s.declined) +
                     ", no placement " + std::to_string(s.no_placement) + ", deadline " +
                     std::to_string(s.deadline) + ", running at horizon " +
                     std::to_string(s.running_at_horizon) + ")");
  add("undecided (arrived at the horizon)", std::to_string(s.undecided));
  add("blocking rate", fixed(s.blocking_rate, 4));
  add("acceptance rate", fixed(s.acceptance_rate, 4));
  add("demand throughput", general(s.throughput) + " B/" + time_unit);
  add("mean / median JCT", general(s.mean_jct) + " / " + general(s.median_jct) + " " + time_unit);
  add("mean speed-up", fixed(s.mean_speedup, 2));
  add("mean servers per job", fixed(s.mean_servers, 2));
  add("mean occupancy", fixed(s.mean_occupancy, 3));
  add("simulated time", general(s.end_time) + " " + time_unit);
  add("lookaheads (cache hits)",
      std::to_string(s.lookaheads) + " (" + std::to_string(s.cache_hits) + ")");
  return format_table(rows);
}

}  // namespace pacml::sim
