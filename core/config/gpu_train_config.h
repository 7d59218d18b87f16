// The GPU policy trainer's config (model/gpu/trainer.h; `pacml train
// --config FILE` with `world: gpu`), as plain data: its keys are bound to
// these members in core/config/train_config_keys.cpp, and their documented
// defaults are these members' initial values. It lives in core, below sim
// and model, so that `pacml config keys train.gpu…` prints the defaults
// without linking LibTorch; the trainer (model/gpu) reads and runs it.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/gpu/network.h"

namespace pacml::gpu {

// The optimiser of the imitation trainer (model/gpu/torch_network.h).
struct TrainParams {
  double lr = 1e-3;
  int minibatch = 256;
  int epochs = 2;
  double value_coef = 0.1;
  double grad_clip = 1.0;
};

struct ScenarioGrid {
  std::vector<std::string> clusters = {"ramp-a100-16x8"};  // preset names or cluster files
  std::vector<double> loads = {1};  // × the workload's arrival rate (see load_reference_gpus)
  std::vector<std::string> admissions = {"immediate", "queue"};
  std::vector<std::uint64_t> seeds = {1};
  long jobs = 2000;  // per episode
};

// Validation runs the training scenarios with other seeds unless the
// config's `validation:` says otherwise (over these).
inline const std::vector<std::uint64_t> kValidationSeeds = {1001, 1002};
ScenarioGrid default_validation(const ScenarioGrid& train);

struct TrainConfig {
  std::string source = "<config>";
  std::string name = "gpu";
  // Built-in names or files (relative to the config); every grid scenario
  // runs with each, so a list widens the job mix without changing the grid.
  std::vector<std::string> workloads = {"elasticflow-01-05"};
  // A load is relative to a cluster of this many GPUs: the generator runs at
  // load × cluster GPUs / load_reference_gpus, so "load 1" puts the same
  // pressure on every cluster size (the fitted workload's own rate keeps 128
  // GPUs busy). 0: loads are the generator's as given.
  int load_reference_gpus = 128;
  std::string order = "edf";  // queue order: edf | submission
  ScenarioGrid train;
  ScenarioGrid validation = default_validation(train);
  std::vector<double> teacher_caps = {0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2, INFINITY};
  // "cap": the labels are the searched cap's (capped:X). "rollout": the
  // rollout search's (sim/gpu/hindsight_search.h) with that capped:X as its
  // base, looking `teacher_lookahead` arrivals ahead: at each decision of
  // the followed rollout, every action is tried against the episode's
  // coming jobs and the best kept.
  std::string teacher = "cap";
  long teacher_lookahead = 200;
  long iterations = 6;
  bool dagger_sample = false;
  // Whether a queue's retries of a waiting job are all recorded (false:
  // only when the teacher's or the policy's answer changes).
  bool record_retries = true;
  long episode_decisions = 5000;  // decisions kept per episode and iteration (a seeded sample)
  long dataset_max = 300000;      // decisions kept across iterations (an equal share each)
  std::uint64_t seed = 1;
  double time_limit_minutes = 30;
  int workers = 2;
  TrainParams optimiser;
  Architecture architecture;

  nlohmann::json to_json() const;
};

}  // namespace pacml::gpu
