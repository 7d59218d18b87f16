#include "core/config/gpu_train_config.h"

namespace pacml::gpu {

namespace {

nlohmann::json grid_json(const ScenarioGrid& g) {
  return {{"clusters", g.clusters},
          {"loads", g.loads},
          {"admissions", g.admissions},
          {"seeds", g.seeds},
          {"jobs", g.jobs}};
}

// JSON has no infinity: an infinite cap is written "inf".
nlohmann::json caps_json(const std::vector<double>& caps) {
  nlohmann::json out = nlohmann::json::array();
  for (double c : caps) out.push_back(std::isfinite(c) ? nlohmann::json(c) : nlohmann::json("inf"));
  return out;
}

}  // namespace

nlohmann::json TrainConfig::to_json() const {
  return {{"world", "gpu"},
          {"name", name},
          {"source", source},
          {"workload",
           workloads.size() == 1 ? nlohmann::json(workloads[0]) : nlohmann::json(workloads)},
          {"load_reference_gpus", load_reference_gpus},
          {"order", order},
          {"train", grid_json(train)},
          {"validation", grid_json(validation)},
          {"teacher_caps", caps_json(teacher_caps)},
          {"teacher", teacher},
          {"teacher_lookahead", teacher_lookahead},
          {"iterations", iterations},
          {"dagger_sample", dagger_sample},
          {"record_retries", record_retries},
          {"episode_decisions", episode_decisions},
          {"dataset_max", dataset_max},
          {"seed", seed},
          {"time_limit_minutes", time_limit_minutes},
          {"workers", workers},
          {"optimiser",
           {{"lr", optimiser.lr},
            {"minibatch", optimiser.minibatch},
            {"epochs", optimiser.epochs},
            {"value_coef", optimiser.value_coef},
            {"grad_clip", optimiser.grad_clip}}},
          {"network", architecture.to_json()},
          {"value_target", "met share of the decision's episode"}};
}

ScenarioGrid default_validation(const ScenarioGrid& train) {
  ScenarioGrid validation = train;
  validation.seeds = kValidationSeeds;
  return validation;
}

}  // namespace pacml::gpu
