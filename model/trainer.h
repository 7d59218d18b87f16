// PPO training of the PAC-ML policy in pacml's simulator (doc/LEARNING.md
// §5), behind `pacml train --config FILE`.
//
// Each update runs `episodes_per_update` whole episodes (β distributions in
// turn, so one model learns all four) on `workers` threads with the current
// policy sampling from its masked softmax. The rollout policy is the
// LibTorch-free LearnedPolicy on the exported weights, so training encodes
// jobs exactly as deployment does. LibTorch then recomputes log-probabilities
// and values, GAE gives advantages and PPO updates the network; message
// passing runs once per distinct graph per minibatch.
//
// Determinism: episode seeds, action draws and minibatch shuffles derive from
// the config's seed and the update number, results are gathered in episode
// order and LibTorch runs on one thread, so a seed gives the same weights
// whatever the worker count (the time limit only decides when to stop).
//
// With a warm start (`warm_start: {teacher, updates}`) the first updates
// imitate a baseline instead, so PPO starts from a sensible policy rather than
// from a uniform one whose delayed costs it cannot yet tell apart.
//
// Output directory: curve.csv (one row per update), curve.png (+ curve.gp,
// baselines.csv), best.pacw (best periodic greedy evaluation), final.pacw,
// checkpoint.pacw + checkpoint.optim.pt (resume with --resume), config.json.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/inference/architecture.h"
#include "model/torch_network.h"
#include "sim/engine/rollout_search.h"

namespace pacml::model {

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
  sim::RolloutSearchConfig search{0, 2, 0.997, 0};
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

// Every key is checked (InputError "file:line" for unknown keys or bad values).
TrainConfig parse_train_config(const std::string& yaml_text, const std::string& source);
TrainConfig load_train_config(const std::string& path);

struct TrainOptions {
  std::string out_dir;
  bool resume = false;
  long max_updates = -1;           // overrides the config when ≥ 0
  double time_limit_minutes = -1;  // overrides the config when ≥ 0
  int workers = -1;                // overrides the config when ≥ 1
  int progress = -1;               // -1 auto (TTY), 0 off, 1 on
  bool verbose = true;             // status lines on stderr
  bool pin_threads = false;        // pin worker i to core i (hwloc); results do not change
};

struct TrainSummary {
  long updates = 0;
  long env_steps = 0;
  double wall_seconds = 0;
  double steps_per_second = 0;
  double best_eval_blocking = -1;  // mean over β of the best greedy evaluation
  std::string final_weights, best_weights;
};

TrainSummary train(const TrainConfig& config, const TrainOptions& options);

// Generalized advantage estimation over one episode (terminal after the last
// step): advantages and returns (= advantages + values).
void compute_gae(const std::vector<float>& rewards, const std::vector<float>& values, double gamma,
                 double lambda, std::vector<float>& advantages, std::vector<float>& returns);

// The source revision (git rev-parse --short HEAD in `dir`), "unknown" if none.
std::string git_revision(const std::string& dir);

// Avoids glibc's mmap/munmap churn on LibTorch's large temporaries
// (a PPO step ran 2–2.6× slower without it). Process-wide: call it in the trainer only.
void tune_allocator();

}  // namespace pacml::model
