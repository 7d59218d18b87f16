// The PPO trainer's config (model/trainer.h): TrainConfig from YAML, and back
// to JSON for config.json and the weights files' metadata. Kept apart from the
// training loop because it needs neither LibTorch nor the simulator's
// episodes, only the key tables shared with the pacml command
// (core/config/train_config_keys.h).
#include "model/trainer.h"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "core/config/train_config_keys.h"
#include "core/policy/baselines.h"
#include "core/util/error.h"
#include "core/util/yaml_input.h"
#include "sim/engine/beta_distribution.h"
#include "sim/workload/paths.h"

namespace pacml::model {

nlohmann::json TrainConfig::to_json() const {
  return {{"name", name},
          {"source", source},
          {"experiment", experiment},
          {"profile", profile},
          {"horizon", horizon},
          {"interarrival", interarrival},
          {"graphs", graphs},
          {"betas", betas},
          {"seed", seed},
          {"time_limit_minutes", time_limit_minutes},
          {"max_updates", max_updates},
          {"episodes_per_update", episodes_per_update},
          {"workers", workers},
          {"gamma", gamma},
          {"lambda", lambda},
          {"reward_scale", reward_scale},
          {"lr_final", lr_final},
          {"warm_start",
           {{"teacher", teacher},
            {"updates", teacher_updates},
            {"smoothing", ppo.imitation_smoothing},
            {"objective", imitate_values ? "values" : "actions"},
            {"temperature", ppo.value_temperature},
            {"dagger_from", dagger_from},
            {"search",
             {{"lookahead", search.lookahead},
              {"samples", search.samples},
              {"margin", search.margin}}}}},
          {"ppo",
           {{"lr", ppo.lr},
            {"clip", ppo.clip},
            {"value_coef", ppo.value_coef},
            {"value_clip", ppo.value_clip},
            {"entropy_coef", ppo.entropy_coef},
            {"grad_clip", ppo.grad_clip},
            {"minibatch", ppo.minibatch},
            {"epochs", ppo.epochs},
            {"normalise_advantages", ppo.normalise_advantages}}},
          {"network", architecture.to_json()},
          {"eval", {{"every", eval_every}, {"seeds", eval_seeds}, {"baselines", eval_baselines}}},
          {"checkpoint_every", checkpoint_every}};
}

namespace {

void check_version(const YAML::Node& r, const std::string& source) {
  check_train_config_version(r, source);
  if (r["world"] && yaml_scalar(r["world"], source, "world") != "paper")
    throw InputError(yaml_where(source, r["world"]),
                     "this is the PAC-ML (paper-world) trainer's config; 'world: gpu' configs "
                     "are read by the GPU trainer (model/gpu/trainer.h)");
}

// The experiment and its overrides.
void parse_episodes(const YAML::Node& r, const std::string& source, TrainConfig& c) {
  const SettingsTable& keys = train_settings();
  if (r["name"]) c.name = keys.text(r, source, "name");
  if (r["experiment"]) {
    c.experiment = keys.text(r, source, "experiment");
    if (c.experiment != "default" && c.experiment.front() != '/')
      c.experiment = sim::directory_of(source) + "/" + c.experiment;
  }
  if (r["profile"]) c.profile = keys.choice(r, source, "profile");
  if (r["horizon"]) c.horizon = keys.number(r, source, "horizon");
  if (r["interarrival"]) c.interarrival = keys.number(r, source, "interarrival");
  if (r["graphs"]) c.graphs = keys.list(r, source, "graphs");
  if (r["betas"]) {
    c.betas = keys.list(r, source, "betas");
    if (c.betas.empty()) throw InputError(yaml_where(source, r["betas"]), "betas is empty");
    for (const auto& b : c.betas) sim::BetaSpec::parse(b, yaml_where(source, r["betas"]));
  }
}

void parse_schedule(const YAML::Node& r, const std::string& source, TrainConfig& c) {
  const SettingsTable& keys = train_settings();
  if (r["seed"]) c.seed = static_cast<std::uint64_t>(keys.integer(r, source, "seed"));
  if (r["time_limit_minutes"]) c.time_limit_minutes = keys.number(r, source, "time_limit_minutes");
  if (r["max_updates"]) c.max_updates = keys.integer(r, source, "max_updates");
  if (r["episodes_per_update"])
    c.episodes_per_update = static_cast<int>(keys.integer(r, source, "episodes_per_update"));
  if (r["workers"]) c.workers = static_cast<int>(keys.integer(r, source, "workers"));
  if (r["gamma"]) c.gamma = keys.number(r, source, "gamma");
  if (r["lambda"]) c.lambda = keys.number(r, source, "lambda");
  if (r["reward_scale"]) c.reward_scale = keys.number(r, source, "reward_scale");
  if (r["lr_final"]) c.lr_final = keys.number(r, source, "lr_final");
  if (r["checkpoint_every"])
    c.checkpoint_every = static_cast<int>(keys.integer(r, source, "checkpoint_every"));
}

void parse_ppo(const YAML::Node& p, const std::string& source, PpoParams& ppo) {
  const SettingsTable& keys = train_ppo_settings();
  keys.check_known(p, source);
  for (auto [name, value] :
       {std::pair{"lr", &ppo.lr}, std::pair{"clip", &ppo.clip},
        std::pair{"value_coef", &ppo.value_coef}, std::pair{"value_clip", &ppo.value_clip},
        std::pair{"entropy_coef", &ppo.entropy_coef}, std::pair{"grad_clip", &ppo.grad_clip}})
    if (p[name]) *value = keys.number(p, source, name);
  if (p["minibatch"]) ppo.minibatch = static_cast<int>(keys.integer(p, source, "minibatch"));
  if (p["epochs"]) ppo.epochs = static_cast<int>(keys.integer(p, source, "epochs"));
  if (p["normalise_advantages"])
    ppo.normalise_advantages = keys.boolean(p, source, "normalise_advantages");
}

void parse_search(const YAML::Node& q, const std::string& source, sim::RolloutSearchConfig& s) {
  const SettingsTable& keys = train_search_settings();
  keys.check_known(q, source);
  if (q["margin"]) s.margin = keys.number(q, source, "margin");
  if (q["lookahead"]) s.lookahead = static_cast<int>(keys.integer(q, source, "lookahead"));
  if (q["samples"]) s.samples = static_cast<int>(keys.integer(q, source, "samples"));
  if (s.lookahead == 0) s.lookahead = 20;
}

void parse_warm_start(const YAML::Node& w, const std::string& source, TrainConfig& c) {
  const SettingsTable& keys = train_warm_start_settings();
  keys.check_known(w, source);
  if (w["objective"]) c.imitate_values = keys.choice(w, source, "objective") == "values";
  if (w["temperature"]) c.ppo.value_temperature = keys.number(w, source, "temperature");
  if (w["dagger_from"]) c.dagger_from = keys.integer(w, source, "dagger_from");
  if (w["search"]) parse_search(w["search"], source, c.search);
  if (w["smoothing"]) c.ppo.imitation_smoothing = keys.number(w, source, "smoothing");
  if (!w["teacher"] || !w["updates"])
    throw InputError(yaml_where(source, w), "warm_start needs 'teacher' and 'updates'");
  c.teacher = keys.text(w, source, "teacher");
  make_baseline_policy(c.teacher, yaml_where(source, w["teacher"]));  // validates the name
  c.teacher_updates = keys.integer(w, source, "updates");
  if (c.imitate_values && c.search.lookahead <= 0)
    throw InputError(yaml_where(source, w["objective"]),
                     "warm_start.objective 'values' needs a warm_start.search to estimate "
                     "the action values");
}

void parse_network(const YAML::Node& n, const std::string& source, inference::Architecture& a) {
  const SettingsTable& keys = train_network_settings();
  keys.check_known(n, source);
  if (n["graph_norm"]) a.graph_norm = keys.boolean(n, source, "graph_norm");
  if (n["module_width"]) a.module_width = static_cast<int>(keys.integer(n, source, "module_width"));
  if (n["layers"]) {
    a.layers.clear();
    for (long width : keys.integers(n, source, "layers"))
      a.layers.push_back(static_cast<int>(width));
  }
  if (n["graph_out"]) a.graph_out = static_cast<int>(keys.integer(n, source, "graph_out"));
  if (n["head_hidden"]) a.head_hidden = static_cast<int>(keys.integer(n, source, "head_hidden"));
}

void parse_eval(const YAML::Node& e, const std::string& source, TrainConfig& c) {
  const SettingsTable& keys = train_eval_settings();
  keys.check_known(e, source);
  if (e["every"]) c.eval_every = static_cast<int>(keys.integer(e, source, "every"));
  if (e["seeds"]) {
    c.eval_seeds.clear();
    for (long seed : keys.integers(e, source, "seeds"))
      c.eval_seeds.push_back(static_cast<std::uint64_t>(seed));
  }
  if (e["baselines"]) c.eval_baselines = keys.list(e, source, "baselines");
}

}  // namespace

TrainConfig parse_train_config(const std::string& yaml_text, const std::string& source) {
  std::istringstream in(yaml_text);
  const YAML::Node root = parse_yaml(in, source);
  return convert_yaml(root, source, [&](const YAML::Node& r) {
    TrainConfig c;
    c.source = source;
    train_settings().check_known(r, source);
    check_version(r, source);
    parse_episodes(r, source, c);
    parse_schedule(r, source, c);
    if (r["ppo"]) parse_ppo(r["ppo"], source, c.ppo);
    if (r["warm_start"]) parse_warm_start(r["warm_start"], source, c);
    if (r["network"]) parse_network(r["network"], source, c.architecture);
    if (r["eval"]) parse_eval(r["eval"], source, c);
    return c;
  });
}

TrainConfig load_train_config(const std::string& path) {
  return parse_train_config(read_input_file(path), path);
}

}  // namespace pacml::model
