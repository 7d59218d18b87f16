// Training of the learned GPU policy (doc/LEARNING.md §7, model/README.md
// "The GPU policy") behind `pacml train --config FILE` when the config says
// `world: gpu`: imitation of a searched admission rule, with DAgger.
//
// Scenarios are the product of the config's clusters, loads and admission
// modes; each (scenario, seed) is one episode of `jobs` jobs drawn from the
// fitted workload and replayed on the cluster (sim/gpu/replay.h).
//
// Teacher, "min_feasible with a cost cap" (the GPU policy capped:X): start
// the fewest GPUs that meet the deadline now if that run costs at most `cap`
// cluster-hours (GPUs × run / (cluster GPUs × 3600 s)), else do not start the
// job now. The cap is searched per episode over `teacher_caps`: the one that
// meets the most deadlines on that episode's jobs (ties: the larger cap). It
// knows the episode's future through its choice of cap, so it teaches, it
// does not deploy.
//
// With `teacher: rollout` the labels are instead the rollout search's with
// that teacher as its base (one step of improvement over it, knowing the
// episode's next teacher_lookahead arrivals).
//
// Iteration 0 follows the teacher; later iterations follow the network
// (greedy, or sampled with dagger_sample) while the teacher labels every
// decision (DAgger), so the network also learns what to do in the states its
// own choices lead to. Decisions with a single candidate (nothing can start)
// teach nothing and are dropped; an episode keeps at most episode_decisions
// (a seeded sample), and the iterations' decisions are aggregated up to
// dataset_max, each iteration an equal share. The network is trained by
// cross-entropy over each decision's candidates; its value head regresses
// the met share of the episode the decision came from.
//
// Determinism: episodes are independent, run on `workers` threads and
// gathered in a fixed order; LibTorch runs on one thread; every random draw
// derives from `seed`. The same config gives the same weights bit for bit
// whatever the worker count (the time limit only decides when to stop).
//
// Output directory: curve.csv (one row per iteration), curve.png (+
// curve.gp), best.pacw (best validation met share), final.pacw, config.json.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/gpu_train_config.h"
#include "core/gpu/network.h"
#include "core/world.h"
#include "model/gpu/torch_network.h"

namespace pacml::gpu {

// Every key is checked: unknown keys and bad values are InputErrors naming
// file:line. Needs `pacml_train: 1` and `world: gpu`.
TrainConfig parse_train_config(const std::string& yaml_text, const std::string& source);
TrainConfig load_train_config(const std::string& path);

// The config's `world:` (core/world.h): gpu is this trainer's, paper (also
// when absent) the PPO trainer's (model/trainer.h); InputError naming
// file:line for another value.
World train_config_world(const std::string& yaml_text, const std::string& source);

struct TrainOptions {
  std::string out_dir;
  long iterations = -1;            // overrides the config when ≥ 0
  double time_limit_minutes = -1;  // overrides the config when ≥ 0
  int workers = -1;                // overrides the config when ≥ 1
  int progress = -1;               // -1 auto (TTY), 0 off, 1 on
  bool verbose = true;             // status lines on stderr
};

struct TrainSummary {
  long iterations = 0;
  long decisions = 0;  // in the final dataset
  double wall_seconds = 0;
  double best_validation = -1;  // met share of the best iteration (greedy network)
  double validation_min_feasible = -1, validation_teacher = -1;
  std::string final_weights, best_weights;
};

TrainSummary train(const TrainConfig& config, const TrainOptions& options);

}  // namespace pacml::gpu
