// PNG plots of an evaluation, drawn by gnuplot (Debian: gnuplot-nox) run as
// a subprocess on a generated script. The data files and the script are
// always written, so a missing gnuplot only costs the PNGs (the message says
// so) and `gnuplot plots.gp` can be rerun later.
//
//   blocking_rate.png  bars: blocking rate per policy, one colour per β distribution, 95% CI
//   occupancy.png      occupied servers over time (first seed), a panel per β distribution
//   jct.png            CDF of the JCT of accepted jobs (all seeds), a panel per β distribution
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/environment.h"
#include "sim/experiment/summary.h"

namespace pacml::sim {

using GroupKey = std::pair<std::string, std::string>;  // (policy, β distribution)

struct PlotData {
  std::vector<GroupSummary> groups;
  std::map<GroupKey, std::vector<OccupancySample>> occupancy;  // one episode per group
  std::map<GroupKey, std::vector<double>> jcts;                // accepted jobs, all seeds
  int servers = 0;
  std::string time_unit = "ms";
  std::string title;
};

bool gnuplot_available();

// A gnuplot string literal (double quotes, escaped).
std::string gnuplot_string(const std::string& text);

// Writes `script` to dir/NAME and runs gnuplot on it in `dir`. Returns a
// line for people: "plots: <pngs>", or why there are none (the script and
// data stay, so it can be rerun).
std::string run_gnuplot(const std::string& dir, const std::string& name, const std::string& script,
                        const std::string& pngs);

// Bars with 95% CI whiskers: a group per category (policy), a bar per series
// (admission mode, β distribution, ...).
struct BarChart {
  std::string name;  // NAME.png and NAME.dat
  std::string title, ylabel;
  std::vector<std::string> categories, series;
  std::vector<std::vector<Stat>> values;  // [category][series]
};

// Writes each chart's NAME.dat and one gnuplot script `script` into `dir`,
// then runs gnuplot. Returns a line for people, as run_gnuplot.
std::string write_bar_charts(const std::string& dir, const std::string& script,
                             const std::vector<BarChart>& charts);

// Writes blocking.dat, occupancy.dat, jct.dat and plots.gp into `dir`, then
// runs gnuplot. Returns a line for people: the PNGs written, or why not.
std::string write_plots(const std::string& dir, const PlotData& data);

}  // namespace pacml::sim
