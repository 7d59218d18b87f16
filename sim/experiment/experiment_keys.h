// The keys of an experiment file, declared once (core/config/settings_table.h):
// experiment.cpp checks and reads them through these tables, and
// `pacml config keys experiment|workload.synthetic|workload.trace|
// workload.fitted` prints them for sim/README.md's generated tables.
#pragma once

#include "core/config/settings_table.h"

namespace pacml::sim {

// The two kinds of experiment, as the tables' `only_with` cases name them.
extern const char* const kPaperStyleExperiment;
extern const char* const kFittedExperiment;

const SettingsTable& experiment_settings();
const SettingsTable& synthetic_workload_settings();
const SettingsTable& trace_workload_settings();
const SettingsTable& fitted_workload_settings();
// `seeds: {first, count}`.
const SettingsTable& seed_range_settings();

}  // namespace pacml::sim
