// `pacml history simulate`: the correction loop in the simulator
// (sim/history/history_simulation.h), its table, CSV, JSON and plot.
#pragma once

#include <string>
#include <vector>

namespace pacml::cli {

int history_simulate(const std::vector<std::string>& argv);

}  // namespace pacml::cli
