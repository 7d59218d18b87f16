// The simulator side of PPO training (model/trainer.h): the experiment the
// trainer learns on, the rollout episodes of one update and the greedy
// evaluation. Internal to the trainer; split from the training loop
// (model/trainer.cpp) so that each reads on its own: this file knows
// episodes, seeds and teachers, the loop knows updates, files and the clock.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/features/features.h"
#include "core/graph/job_graph.h"
#include "core/hw/thread_pinning.h"
#include "core/inference/learned_model.h"
#include "model/torch_network.h"
#include "model/trainer.h"
#include "sim/engine/environment.h"
#include "sim/experiment/experiment.h"

namespace pacml::model::ppo {

// One rollout episode's steps.
struct EpisodeSteps {
  std::vector<int> graph;
  std::vector<float> inputs;
  std::vector<int> actions;
  std::vector<float> action_values;  // steps × kNumActions: the teacher's, when it searched
  std::vector<float> rewards;
  double blocking = 0;
  size_t beta = 0;
};

// The episodes' steps in episode order, as one batch for the network.
StepBatch concatenate(const std::vector<EpisodeSteps>& episodes);

// Everything fixed before the first update.
struct Setup {
  std::unique_ptr<sim::Experiment> experiment;
  std::vector<JobGraphPtr> population;  // distinct graphs of the training workload
  std::map<std::uint64_t, int> graph_index;
  GraphSet graph_set;
  features::Normalisers normalisers;
  nlohmann::json topology;
};

// The config's experiment with its overrides, its distinct graphs (encoded
// once) and the normalisers the weights files store.
Setup make_setup(const TrainConfig& c);

// One β distribution's environment, without the records only reports need.
sim::EnvironmentConfig env_config(const Setup& s, size_t beta);

// The update's episodes (episodes_per_update of them, β distributions in
// turn) on `threads` threads, gathered in episode order, their seeds derived
// from the config's seed and the update. The network samples; while
// imitating, the config's teacher labels every decision and the episode
// follows it (from dagger_from on, the network: DAgger).
std::vector<EpisodeSteps> run_rollouts(const Setup& s, const TrainConfig& c,
                                       const std::shared_ptr<const inference::LearnedModel>& model,
                                       long update, bool imitating, int threads,
                                       const hw::ThreadPinner* pinner);

// Mean greedy blocking per β over the eval seeds.
std::vector<double> greedy_eval(const Setup& s,
                                const std::shared_ptr<const inference::LearnedModel>& model,
                                const std::vector<std::uint64_t>& seeds, int threads,
                                const hw::ThreadPinner* pinner);

}  // namespace pacml::model::ppo
