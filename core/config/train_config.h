// The PAC-ML (paper-world, PPO) trainer's config (model/trainer.h; `pacml
// train --config FILE` without `world: gpu`), as plain data: its keys are
// bound to these members in core/config/train_config_keys.cpp, and their
// documented defaults are these members' initial values. It lives in core,
// below sim and model, so that `pacml config keys train…` prints the
// defaults without linking LibTorch; the trainer (model/) reads and runs it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/inference/architecture.h"

namespace pacml {

struct PpoParams {
  double lr = 2.785e-4;
  double clip = 0.18;
  double value_coef = 0.5;
  double value_clip = 0;  // 0: no value clipping
  double entropy_coef = 0.003;
  double grad_clip = 1.5;
  int minibatch = 128;
  int epochs = 4;
  bool normalise_advantages = true;
  // Imitation only: probability mass of the target spread evenly over the
  // feasible actions instead of the teacher's (keeps the student exploring).
  double imitation_smoothing = 0.2;
  // kSearchValues only: reward units per logit unit (the logits regress the
  // teacher's action values divided by this).
  double value_temperature = 1.0;
};

// `warm_start.search`: the rollout search the teacher labels with
// (sim/engine/rollout_search.h's RolloutSearchConfig, its discount the
// search's own). Given, its keys default to these.
struct TrainSearch {
  int lookahead = 20;  // arrivals followed by the baseline after each tried action
  int samples = 2;     // sampled futures per candidate
  double margin = 0;   // another action than the baseline's must win by more
};

struct TrainConfig {
  std::string source = "<config>";
  std::string name = "pacml";
  std::string experiment =
      "default";  // a file (relative to the config), or "default" = "paper-zoo" (built in)
  // Optional overrides of the experiment.
  std::string profile;
  double horizon = 0;               // 0: the experiment's
  double interarrival = 0;          // 0: the experiment's
  std::vector<std::string> graphs;  // empty: the experiment's
  std::vector<std::string> betas = {"A", "B", "C", "D"};
  std::uint64_t seed = 1;
  double time_limit_minutes = 55;
  long max_updates = 100000;
  int episodes_per_update = 4;
  int workers = 2;
  double gamma = 0.997, lambda = 0.95;
  double reward_scale = 0.01;
  double lr_final = -1;  // < 0: constant learning rate; else linear decay over max_updates
  PpoParams ppo;
  // Warm start: for the first `teacher_updates` updates the rollouts follow
  // the baseline `teacher` (its choice, or 0 where it is infeasible) and the
  // network learns to imitate it (behaviour cloning) and to value its
  // states; PPO then improves on it. Empty teacher: PPO from the start.
  std::string teacher;
  long teacher_updates = 0;
  // From this imitation update on, the rollouts follow the network (sampled)
  // while the teacher still labels every decision (DAgger), so the network
  // also learns what to do in the states its own mistakes lead to.
  long dagger_from = -1;  // < 0: never
  // With search.lookahead > 0 the teacher is the rollout search over the
  // baseline (sim/engine/rollout_search.h): each feasible action is tried in
  // what-if copies over sampled futures, the baseline choosing afterwards.
  // Without `warm_start.search`: no search.
  TrainSearch search{0, 2, 0};
  // With a search, what the network learns from it: "actions" (false) clones
  // the teacher's choices; "values" (true) regresses the searched action
  // values (TorchNetwork::Objective::kSearchValues), so that the network
  // departs from the baseline where the departure pays on average rather
  // than where one noisy search happened to prefer it.
  bool imitate_values = false;
  inference::Architecture architecture;
  int eval_every = 10;  // updates; 0: never
  std::vector<std::uint64_t> eval_seeds = {100000, 100001};
  std::vector<std::string> eval_baselines = {"para_max", "para_min", "random",  "fixed:1",
                                             "fixed:2",  "fixed:4",  "fixed:8", "fixed:16"};
  int checkpoint_every = 10;

  nlohmann::json to_json() const;
};

}  // namespace pacml
