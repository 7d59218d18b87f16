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

#include "core/config/train_config.h"
#include "core/inference/architecture.h"
#include "model/torch_network.h"
#include "sim/engine/rollout_search.h"

namespace pacml::model {

// The config, plain data in core (core/config/train_config.h), so that the
// pacml command lists its keys and defaults without LibTorch.
using pacml::TrainConfig;

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
