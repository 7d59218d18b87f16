// The GPU trainer's config (core/config/gpu_train_config.h) from YAML: the
// key tables shared with the pacml command (core/config/train_config_keys.h)
// read it, and this checks what needs the simulator (workload names, cluster
// files, admissions) and the keys together. Kept apart from the training
// because it needs neither LibTorch nor the replays.
#include "model/gpu/trainer.h"

#include <algorithm>
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

// A cluster entry: a preset name, or a file relative to the config.
std::string resolve_cluster(const std::string& entry, const std::string& source) {
  for (const std::string& preset : cluster_preset_names())
    if (preset == entry) return entry;
  if (entry.empty() || entry.front() == '/') return entry;
  return sim::directory_of(source) + "/" + entry;
}

// What the key tables leave to the trainer, which knows the simulator: a
// grid's cluster files (relative to the config, each loaded now) and its
// admissions. Each list is named at the grid that gave it: this one, else
// (for validation) the training grid it starts from.
void check_grid(const YAML::Node& r, const char* name, const std::string& source, ScenarioGrid& g) {
  const auto given = [&](const char* key) {
    for (const char* grid : {name, "train"})
      if (r[grid] && r[grid].IsMap() && r[grid][key]) return YAML::Node(r[grid][key]);
    return YAML::Node();
  };
  if (const YAML::Node n = given("clusters"))
    for (std::string& cluster : g.clusters) {
      cluster = resolve_cluster(cluster, source);
      load_cluster(cluster, yaml_where(source, n));  // validates it now
    }
  if (const YAML::Node n = given("admissions"))
    for (const std::string& a : g.admissions) parse_admission(a, yaml_where(source, n));
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
    const BoundSettings<TrainConfig>& keys = gpu_train_keys();
    keys.table().check_known(r, source);
    check_train_config_version(r, source);
    if (config_world(r, source) != World::kGpu)
      throw InputError(source, "a GPU training config needs 'world: gpu'");
    keys.read(r, source, c);
    if (!r["validation"]) c.validation = default_validation(c.train);
    for (std::string& w : c.workloads)
      if (!is_builtin_workload(w) && w.front() != '/') w = sim::directory_of(source) + "/" + w;
    check_grid(r, "train", source, c.train);
    check_grid(r, "validation", source, c.validation);
    check_seeds_disjoint(c, r["validation"] ? r["validation"] : r);
    // The search labels the decisions of a replay it makes itself, which a
    // sampled rollout would leave.
    if (c.teacher == "rollout" && c.dagger_sample)
      throw InputError(yaml_where(source, r["dagger_sample"]),
                       "dagger_sample: true needs teacher: cap (the rollout search labels the "
                       "greedy network's decisions)");
    return c;
  });
}

TrainConfig load_train_config(const std::string& path) {
  return parse_train_config(read_input_file(path), path);
}

}  // namespace pacml::gpu
