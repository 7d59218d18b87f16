// The keys of the two trainers' config files (`pacml train --config FILE`),
// declared once (core/config/settings_table.h): the parsers in
// model/trainer_config.cpp and model/gpu/trainer_config.cpp read them through
// these tables, `pacml config keys train…` prints them and
// contrib/train/README.md's tables are generated from them. They live in
// core, below both sim and model, so that the pacml command lists them
// without including model/ or linking LibTorch.
#pragma once

#include <string>

#include "core/config/bound_settings.h"
#include "core/config/gpu_train_config.h"
#include "core/config/settings_table.h"
#include "core/config/train_config.h"

namespace pacml {

// The PAC-ML (paper-world, PPO) trainer: `world: paper` or no world. Its
// keys are bound to TrainConfig's members (core/config/train_config.h): a
// file is read by check_known + train_keys().read; what needs the simulator
// (the experiment's path, the β distributions) is checked by the trainer.
const BoundSettings<TrainConfig>& train_keys();
const SettingsTable& train_settings();             // top level
const SettingsTable& train_ppo_settings();         // ppo:
const SettingsTable& train_warm_start_settings();  // warm_start:
const SettingsTable& train_search_settings();      // warm_start.search:
const SettingsTable& train_network_settings();     // network:
const SettingsTable& train_eval_settings();        // eval:

// Both trainers: a config must say `pacml_train: 1` (InputError naming
// file:line otherwise).
void check_train_config_version(const YAML::Node& root, const std::string& source);

// The GPU-policy trainer: `world: gpu`. Its keys are bound to
// gpu::TrainConfig's members (core/config/gpu_train_config.h): a file is
// read by check_known + gpu_train_keys().read; what needs the simulator
// (workload names, cluster files, admissions) is checked by the trainer.
const BoundSettings<gpu::TrainConfig>& gpu_train_keys();
const SettingsTable& gpu_train_settings();            // top level
const SettingsTable& gpu_train_scenario_settings();   // train: and validation:
const SettingsTable& gpu_train_optimiser_settings();  // optimiser:
const SettingsTable& gpu_train_network_settings();    // network:

}  // namespace pacml
