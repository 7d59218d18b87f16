// The GPU trainer's config (model/gpu/trainer.h): TrainConfig from YAML,
// and back to JSON for config.json and the weights files' metadata. Kept
// apart from the training because it needs neither LibTorch nor the
// replays, only the key tables shared with the pacml command
// (core/config/train_config_keys.h).
#include "model/gpu/trainer.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/cluster/cluster_spec.h"
#include "core/config/train_config_keys.h"
#include "core/util/error.h"
#include "core/util/yaml_input.h"
#include "sim/gpu/fitted_workload.h"
#include "sim/gpu/replay.h"
#include "sim/workload/paths.h"

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

namespace {

// A cap is a positive number of cluster-hours or inf (no cap: min_feasible).
std::vector<double> yaml_caps(const YAML::Node& n, const std::string& source) {
  if (!n.IsSequence() || n.size() == 0)
    throw InputError(yaml_where(source, n), "teacher_caps must be a non-empty list");
  const SettingKey& key = gpu_train_settings().key("teacher_caps");
  std::vector<double> out;
  for (const auto& v : n) {
    const std::string text = yaml_scalar(v, source, "teacher_caps entry");
    out.push_back(text == "inf" || text == ".inf"
                      ? INFINITY
                      : yaml_number(v, source, "teacher_caps entry", key.min, key.max));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> yaml_list(const YAML::Node& n, const std::string& source,
                                   const std::string& what) {
  std::vector<std::string> out = yaml_strings(n, source, what);
  if (out.empty()) throw InputError(yaml_where(source, n), what + " is empty");
  return out;
}

// A cluster entry: a preset name, or a file relative to the config.
std::string resolve_cluster(const std::string& entry, const std::string& source) {
  for (const std::string& preset : cluster_preset_names())
    if (preset == entry) return entry;
  if (entry.empty() || entry.front() == '/') return entry;
  return sim::directory_of(source) + "/" + entry;
}

void parse_grid(const YAML::Node& g, const std::string& source, ScenarioGrid& out) {
  const SettingsTable& keys = gpu_train_scenario_settings();
  keys.check_known(g, source);
  if (g["clusters"]) {
    out.clusters.clear();
    for (const auto& c : yaml_list(g["clusters"], source, "clusters")) {
      const std::string path = resolve_cluster(c, source);
      load_cluster(path, yaml_where(source, g["clusters"]));  // validates it now
      out.clusters.push_back(path);
    }
  }
  if (g["loads"]) out.loads = keys.numbers(g, source, "loads");
  if (g["admissions"]) {
    out.admissions = yaml_list(g["admissions"], source, "admissions");
    for (const auto& a : out.admissions) parse_admission(a, yaml_where(source, g["admissions"]));
  }
  if (g["seeds"]) {
    out.seeds.clear();
    for (long seed : keys.integers(g, source, "seeds"))
      out.seeds.push_back(static_cast<std::uint64_t>(seed));
  }
  if (g["jobs"]) out.jobs = keys.integer(g, source, "jobs");
}

void parse_optimiser(const YAML::Node& o, const std::string& source, TrainParams& p) {
  const SettingsTable& keys = gpu_train_optimiser_settings();
  keys.check_known(o, source);
  if (o["lr"]) p.lr = keys.number(o, source, "lr");
  if (o["minibatch"]) p.minibatch = static_cast<int>(keys.integer(o, source, "minibatch"));
  if (o["epochs"]) p.epochs = static_cast<int>(keys.integer(o, source, "epochs"));
  if (o["value_coef"]) p.value_coef = keys.number(o, source, "value_coef");
  if (o["grad_clip"]) p.grad_clip = keys.number(o, source, "grad_clip");
}

void parse_network(const YAML::Node& n, const std::string& source, Architecture& a) {
  const SettingsTable& keys = gpu_train_network_settings();
  keys.check_known(n, source);
  if (n["module_width"])
    a.graph.module_width = static_cast<int>(keys.integer(n, source, "module_width"));
  if (n["layers"]) {
    a.graph.layers.clear();
    for (long width : keys.integers(n, source, "layers"))
      a.graph.layers.push_back(static_cast<int>(width));
  }
  if (n["hidden"]) a.hidden = static_cast<int>(keys.integer(n, source, "hidden"));
}

// The top-level keys other than the grids, optimiser and network.
void parse_scalars(const YAML::Node& r, const std::string& source, TrainConfig& c) {
  const SettingsTable& keys = gpu_train_settings();
  if (r["name"]) c.name = keys.text(r, source, "name");
  if (r["workload"]) {
    c.workloads = keys.list(r, source, "workload");
    if (c.workloads.empty())
      throw InputError(yaml_where(source, r["workload"]), "workload: empty list");
    for (std::string& w : c.workloads)
      if (!is_builtin_workload(w) && w.front() != '/') w = sim::directory_of(source) + "/" + w;
  }
  if (r["load_reference_gpus"])
    c.load_reference_gpus = static_cast<int>(keys.integer(r, source, "load_reference_gpus"));
  if (r["order"]) c.order = keys.choice(r, source, "order");
  if (r["teacher_caps"]) c.teacher_caps = yaml_caps(r["teacher_caps"], source);
  if (r["teacher"]) c.teacher = keys.choice(r, source, "teacher");
  if (r["teacher_lookahead"]) c.teacher_lookahead = keys.integer(r, source, "teacher_lookahead");
  if (r["iterations"]) c.iterations = keys.integer(r, source, "iterations");
  if (r["dagger_sample"]) c.dagger_sample = keys.boolean(r, source, "dagger_sample");
  if (r["record_retries"]) c.record_retries = keys.boolean(r, source, "record_retries");
  if (r["episode_decisions"]) c.episode_decisions = keys.integer(r, source, "episode_decisions");
  if (r["dataset_max"]) c.dataset_max = keys.integer(r, source, "dataset_max");
  if (r["seed"]) c.seed = static_cast<std::uint64_t>(keys.integer(r, source, "seed"));
  if (r["time_limit_minutes"]) c.time_limit_minutes = keys.number(r, source, "time_limit_minutes");
  if (r["workers"]) c.workers = static_cast<int>(keys.integer(r, source, "workers"));
}

// Validation seeds must not be training seeds: the curve would flatter.
void check_seeds_disjoint(const TrainConfig& c, const YAML::Node& where) {
  for (auto s : c.validation.seeds)
    if (std::count(c.train.seeds.begin(), c.train.seeds.end(), s))
      throw InputError(yaml_where(c.source, where),
                       "validation seed " + std::to_string(s) + " is also a training seed");
}

}  // namespace

namespace {

World config_world(const YAML::Node& root, const std::string& source) {
  if (!root.IsMap() || !root["world"]) return World::kPaper;
  return parse_world(yaml_scalar(root["world"], source, "world"),
                     yaml_where(source, root["world"]));
}

}  // namespace

World train_config_world(const std::string& yaml_text, const std::string& source) {
  std::istringstream in(yaml_text);
  return config_world(parse_yaml(in, source), source);
}

TrainConfig parse_train_config(const std::string& yaml_text, const std::string& source) {
  std::istringstream in(yaml_text);
  const YAML::Node root = parse_yaml(in, source);
  return convert_yaml(root, source, [&](const YAML::Node& r) {
    TrainConfig c;
    c.source = source;
    c.train = {{"ramp-a100-16x8"}, {1}, {"immediate", "queue"}, {1}, 2000};
    gpu_train_settings().check_known(r, source);
    check_train_config_version(r, source);
    if (config_world(r, source) != World::kGpu)
      throw InputError(source, "a GPU training config needs 'world: gpu'");
    parse_scalars(r, source, c);
    if (r["train"]) parse_grid(r["train"], source, c.train);
    c.validation = c.train;
    c.validation.seeds = {1001, 1002};
    if (r["validation"]) parse_grid(r["validation"], source, c.validation);
    check_seeds_disjoint(c, r["validation"] ? r["validation"] : r);
    // The search labels the decisions of a replay it makes itself, which a
    // sampled rollout would leave.
    if (c.teacher == "rollout" && c.dagger_sample)
      throw InputError(yaml_where(source, r["dagger_sample"]),
                       "dagger_sample: true needs teacher: cap (the rollout search labels the "
                       "greedy network's decisions)");
    if (r["optimiser"]) parse_optimiser(r["optimiser"], source, c.optimiser);
    if (r["network"]) parse_network(r["network"], source, c.architecture);
    return c;
  });
}

TrainConfig load_train_config(const std::string& path) {
  return parse_train_config(read_input_file(path), path);
}

}  // namespace pacml::gpu
