// The keys of an experiment file, declared once and bound to ExperimentSpec's
// members (core/config/bound_settings.h): a key's documented default is its
// member's value in a default-built ExperimentSpec, and experiment.cpp reads
// a file as check_known + one read loop per table. `pacml config keys
// experiment|experiment.seeds|workload.synthetic|workload.trace|
// workload.fitted` prints these tables for sim/README.md's generated ones.
#pragma once

#include <string>

#include "core/config/bound_settings.h"
#include "core/world.h"
#include "sim/experiment/experiment.h"

namespace pacml::sim {

// The two kinds of experiment, as the tables' `only_with` cases name them.
extern const char* const kPaperStyleExperiment;
extern const char* const kFittedExperiment;
// The β distribution when none is given: a paper-style experiment's `beta:`
// and a fitted workload's with `deadline: beta`.
extern const char* const kDefaultBeta;

// `seeds: {first, count}`: consecutive seeds.
struct SeedRange {
  long first = 0;
  long count = 1;
};

// The top level. `workload` is read by the table of its type (below), and
// `policies` only as a list: their names are checked by parse_experiment,
// which knows whether to load learned policies.
const BoundSettings<ExperimentSpec>& experiment_keys();
const BoundSettings<ExperimentSpec>& synthetic_workload_keys();
const BoundSettings<ExperimentSpec>& trace_workload_keys();
const BoundSettings<ExperimentSpec>& fitted_workload_keys();
const BoundSettings<SeedRange>& seed_range_keys();

// Their tables, as `pacml config keys` prints them.
const SettingsTable& experiment_settings();
const SettingsTable& synthetic_workload_settings();
const SettingsTable& trace_workload_settings();
const SettingsTable& fitted_workload_settings();
const SettingsTable& seed_range_settings();

// The experiment's world: `world:` when given, else the workload's (`kind:
// fitted` runs on a GPU cluster; `type: synthetic|trace` is the paper's).
// The two must agree (InputError at `world:` otherwise).
World experiment_world(const YAML::Node& root, const std::string& source);

}  // namespace pacml::sim
