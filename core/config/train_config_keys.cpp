#include "core/config/train_config_keys.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/policy/baselines.h"
#include "core/util/error.h"
#include "core/util/yaml_input.h"

namespace pacml {
namespace {

using T = SettingType;

// The keys both trainers share, with the same meaning and range (their
// defaults are each trainer's member's).
SettingKey version_key() {
  return SettingKey("pacml_train", T::kInteger, "format version: 1 (required)").range(1, 1000);
}
// `world` picks the trainer (model/gpu/trainer.h train_config_world).
SettingKey paper_world_key() {
  return SettingKey("world", T::kChoice, "this trainer; `gpu` files are read by the GPU trainer")
      .one_of({"paper"})
      .defaults_to("paper");
}
SettingKey gpu_world_key() {
  return SettingKey("world", T::kChoice, "this trainer (required)").one_of({"gpu"});
}
SettingKey seed_key() {
  return SettingKey("seed", T::kInteger, "everything random derives from it").range(0, 1L << 53);
}
SettingKey time_limit_key() {
  return SettingKey("time_limit_minutes", T::kNumber,
                    "stop after this much training wall time (resumed runs count)")
      .range(0, 1e7, "minutes");
}
SettingKey workers_key() {
  return SettingKey("workers", T::kInteger, "rollout threads (the weights do not depend on it)")
      .range(1, 256);
}
SettingKey module_width_key() {
  return SettingKey("module_width", T::kInteger, "W: width of the node and edge modules")
      .range(1, 4096);
}

// The world key's reader: checked against the table (a config of the other
// trainer is refused before the read, with its own message).
template <class C>
typename BoundSettings<C>::Reader world_checked() {
  return [](const SettingsTable& keys, const YAML::Node& r, const std::string& source, C&) {
    keys.choice(r, source, "world");
  };
}

template <class C>
typename BoundSettings<C>::Reader version_checked() {
  return [](const SettingsTable&, const YAML::Node& r, const std::string& source, C&) {
    check_train_config_version(r, source);
  };
}

// A mapping key read by the table `keys` into the member `member` of the config.
template <class C, class M>
typename BoundSettings<C>::Reader mapping_into(const BoundSettings<M>& (*keys)(), M C::*member,
                                               const char* name) {
  return [keys, member, name](const SettingsTable& table, const YAML::Node& r,
                              const std::string& source, C& c) {
    const YAML::Node m = table.mapping(r, source, name);
    keys().table().check_known(m, source);
    keys().read(m, source, c.*member);
  };
}

const BoundSettings<PpoParams>& ppo_keys() {
  static const PpoParams d;
  static const BoundSettings<PpoParams> keys(
      "ppo key",
      {bind(SettingKey("lr", T::kNumber, "Adam's learning rate").range(1e-12, 1), &PpoParams::lr,
            d),
       bind(SettingKey("clip", T::kNumber, "the surrogate's clip range").range(0, 10),
            &PpoParams::clip, d),
       bind(SettingKey("value_coef", T::kNumber, "weight of the value loss").range(0, 1e6),
            &PpoParams::value_coef, d),
       bind(SettingKey("value_clip", T::kNumber, "value clipping (0: none)").range(0, 1e6),
            &PpoParams::value_clip, d),
       bind(SettingKey("entropy_coef", T::kNumber, "weight of the entropy bonus").range(0, 1e6),
            &PpoParams::entropy_coef, d),
       bind(SettingKey("grad_clip", T::kNumber, "gradient norm clip").range(0, 1e6),
            &PpoParams::grad_clip, d),
       bind(SettingKey("minibatch", T::kInteger, "decisions per gradient step").range(1, 1 << 24),
            &PpoParams::minibatch, d),
       bind(SettingKey("epochs", T::kInteger, "passes over each update's decisions").range(1, 1000),
            &PpoParams::epochs, d),
       bind(SettingKey("normalise_advantages", T::kBoolean, "advantages scaled to unit variance"),
            &PpoParams::normalise_advantages, d)});
  return keys;
}

const BoundSettings<TrainSearch>& search_keys() {
  static const TrainSearch d;
  static const BoundSettings<TrainSearch> keys(
      "warm_start.search key",
      {bind(SettingKey("lookahead", T::kInteger,
                       "arrivals followed by the baseline after each tried action")
                .range(1, 100000),
            &TrainSearch::lookahead, d),
       bind(SettingKey("samples", T::kInteger, "sampled futures per candidate").range(1, 1000),
            &TrainSearch::samples, d),
       bind(SettingKey("margin", T::kNumber,
                       "another action than the baseline's must win by more than this (one job = "
                       "2)")
                .range(0, 1e6),
            &TrainSearch::margin, d)});
  return keys;
}

const char* objective_name(bool imitate_values) {
  return imitate_values ? "values" : "actions";
}

const BoundSettings<TrainConfig>& warm_start_keys() {
  static const TrainConfig d;
  const auto ppo = [](auto member) { return nested(&TrainConfig::ppo, member); };
  static const BoundSettings<TrainConfig> keys(
      "warm_start key",
      {bind(SettingKey("teacher", T::kText,
                       "the baseline imitated (behaviour cloning) first (required)"),
            &TrainConfig::teacher, d,
            [](const YAML::Node& n, const std::string& source) {
              const std::string teacher = yaml_scalar(n, source, "teacher");
              make_baseline_policy(teacher, yaml_where(source, n));  // validates the name
              return teacher;
            }),
       no_default(bind(SettingKey("updates", T::kInteger, "imitation updates, then PPO (required)")
                           .range(0, 1L << 40),
                       &TrainConfig::teacher_updates, d)),
       bind(SettingKey("smoothing", T::kNumber,
                       "share of the target spread over the feasible actions (keeps exploring)")
                .range(0, 1),
            ppo(&PpoParams::imitation_smoothing), d),
       bind_with<TrainConfig>(SettingKey("search", T::kMapping,
                                         "the teacher is a rollout search over the baseline: table "
                                         "`train.warm_start.search`"),
                              [](const SettingsTable& keys, const YAML::Node& w,
                                 const std::string& source, TrainConfig& c) {
                                const YAML::Node q = keys.mapping(w, source, "search");
                                search_keys().table().check_known(q, source);
                                c.search = TrainSearch();  // given: the search's own defaults
                                search_keys().read(q, source, c.search);
                              }),
       no_default(bind(SettingKey("dagger_from", T::kInteger,
                                  "from this update on the network acts and the teacher labels "
                                  "(DAgger)")
                           .range(0, 1L << 40),
                       &TrainConfig::dagger_from, d)),
       bind_with<TrainConfig>(
           SettingKey("objective", T::kChoice,
                      "`actions` clones the teacher's choices; `values` regresses the searched "
                      "action values (needs search), so the network departs where a departure "
                      "pays")
               .one_of({objective_name(false), objective_name(true)})
               .defaults_to(objective_name(d.imitate_values)),
           [](const SettingsTable& keys, const YAML::Node& w, const std::string& source,
              TrainConfig& c) {
             c.imitate_values = keys.choice(w, source, "objective") == objective_name(true);
           }),
       bind(SettingKey("temperature", T::kNumber,
                       "`values` only: reward units per logit unit (smaller: greedier sampling)")
                .range(1e-3, 1e3),
            ppo(&PpoParams::value_temperature), d)});
  return keys;
}

// warm_start: its keys, then the two it needs and what `values` needs.
void read_warm_start(const SettingsTable& keys, const YAML::Node& r, const std::string& source,
                     TrainConfig& c) {
  const YAML::Node w = keys.mapping(r, source, "warm_start");
  warm_start_keys().table().check_known(w, source);
  if (!w["teacher"] || !w["updates"])
    throw InputError(yaml_where(source, w), "warm_start needs 'teacher' and 'updates'");
  warm_start_keys().read(w, source, c);
  if (c.imitate_values && c.search.lookahead <= 0)
    throw InputError(yaml_where(source, w["objective"]),
                     "warm_start.objective 'values' needs a warm_start.search to estimate "
                     "the action values");
}

const BoundSettings<inference::Architecture>& paper_network_keys() {
  using inference::Architecture;
  static const Architecture d;
  static const BoundSettings<Architecture> keys(
      "network key",
      {bind(module_width_key(), &Architecture::module_width, d),
       bind(SettingKey("layers", T::kList, "output width of each message-passing layer")
                .range(1, 4096),
            &Architecture::layers, d),
       bind(SettingKey("graph_out", T::kInteger, "G: width of the graph module").range(1, 4096),
            &Architecture::graph_out, d),
       bind(SettingKey("graph_norm", T::kBoolean, "LayerNorm before the graph module"),
            &Architecture::graph_norm, d),
       bind(SettingKey("head_hidden", T::kInteger, "width of the policy and value heads")
                .range(1, 4096),
            &Architecture::head_hidden, d)});
  return keys;
}

const BoundSettings<TrainConfig>& eval_keys() {
  static const TrainConfig d;
  static const BoundSettings<TrainConfig> keys(
      "eval key",
      {bind(SettingKey("every", T::kInteger, "updates between evaluations (0: never)")
                .range(0, 1 << 30),
            &TrainConfig::eval_every, d),
       bind(SettingKey("seeds", T::kList, "greedy evaluation seeds, never trained on")
                .range(0, 1L << 53),
            &TrainConfig::eval_seeds, d),
       // The eight baselines, abridged in words.
       bind_with<TrainConfig>(
           SettingKey("baselines", T::kList, "policies evaluated next to the network")
               .defaults_to(d.eval_baselines.front() + ", " + d.eval_baselines[1] + ", " +
                            d.eval_baselines[2] + ", " + d.eval_baselines[3] + " … " +
                            d.eval_baselines.back()),
           [](const SettingsTable& keys, const YAML::Node& e, const std::string& source,
              TrainConfig& c) { c.eval_baselines = keys.list(e, source, "baselines"); })});
  return keys;
}

const BoundSettings<TrainConfig>& train_keys_of(const TrainConfig& d) {
  static const BoundSettings<TrainConfig> keys(
      "training config key",
      {bind_with<TrainConfig>(version_key(), version_checked<TrainConfig>()),
       bind_with<TrainConfig>(paper_world_key(), world_checked<TrainConfig>()),
       bind(SettingKey("name", T::kText, "label in logs and plots"), &TrainConfig::name, d),
       bind(SettingKey("experiment", T::kText,
                       "experiment YAML (relative to this file) or `default` (built in): profile, "
                       "topology, N, horizon, graphs"),
            &TrainConfig::experiment, d),
       bind(SettingKey("profile", T::kChoice, "overrides the experiment's JCT model")
                .one_of({"physical", "reference"}),
            &TrainConfig::profile, d),
       no_default(
           bind(SettingKey("horizon", T::kNumber, "overrides the experiment's episode length")
                    .range(1e-9, 1e300),
                &TrainConfig::horizon, d)),
       no_default(bind(SettingKey("interarrival", T::kNumber,
                                  "overrides the experiment's time between arrivals")
                           .range(1e-12, 1e300),
                       &TrainConfig::interarrival, d)),
       no_default(bind(SettingKey("graphs", T::kList, "overrides the experiment's job graphs"),
                       &TrainConfig::graphs, d)),
       bind(SettingKey("betas", T::kList,
                       "episode k uses betas[k mod len], so one model learns them all (beta is an "
                       "input)"),
            &TrainConfig::betas, d,
            [](const YAML::Node& n, const std::string& source) {
              std::vector<std::string> betas = yaml_strings(n, source, "betas");
              if (betas.empty()) throw InputError(yaml_where(source, n), "betas is empty");
              return betas;
            }),
       bind(seed_key(), &TrainConfig::seed, d),
       bind(time_limit_key(), &TrainConfig::time_limit_minutes, d),
       bind(SettingKey("max_updates", T::kInteger, "PPO updates at most").range(0, 1L << 40),
            &TrainConfig::max_updates, d),
       bind(SettingKey("episodes_per_update", T::kInteger, "whole episodes per update")
                .range(1, 4096),
            &TrainConfig::episodes_per_update, d),
       bind(workers_key(), &TrainConfig::workers, d),
       bind(SettingKey("gamma", T::kNumber, "discount of the rewards").range(0, 1),
            &TrainConfig::gamma, d),
       bind(SettingKey("lambda", T::kNumber, "GAE lambda").range(0, 1), &TrainConfig::lambda, d),
       bind(SettingKey("reward_scale", T::kNumber,
                       "rewards of +-1 are scaled by this (keeps value targets O(1))")
                .range(1e-9, 1e9),
            &TrainConfig::reward_scale, d),
       no_default(bind(SettingKey("lr_final", T::kNumber,
                                  "linear decay of ppo.lr to this over max_updates (absent: "
                                  "constant)")
                           .range(0, 1),
                       &TrainConfig::lr_final, d)),
       bind_with<TrainConfig>(SettingKey("ppo", T::kMapping, "PPO's settings: table `train.ppo`"),
                              mapping_into(ppo_keys, &TrainConfig::ppo, "ppo")),
       bind_with<TrainConfig>(
           SettingKey("warm_start", T::kMapping,
                      "imitation of a teacher before PPO: table `train.warm_start`"),
           read_warm_start),
       bind_with<TrainConfig>(
           SettingKey("network", T::kMapping, "the network's sizes: table `train.network`"),
           mapping_into(paper_network_keys, &TrainConfig::architecture, "network")),
       bind_with<TrainConfig>(
           SettingKey("eval", T::kMapping, "evaluation during training: table `train.eval`"),
           [](const SettingsTable& keys, const YAML::Node& r, const std::string& source,
              TrainConfig& c) {
             const YAML::Node e = keys.mapping(r, source, "eval");
             eval_keys().table().check_known(e, source);
             eval_keys().read(e, source, c);
           }),
       bind(SettingKey("checkpoint_every", T::kInteger, "updates between checkpoints")
                .range(1, 1 << 30),
            &TrainConfig::checkpoint_every, d)});
  return keys;
}

}  // namespace

const BoundSettings<TrainConfig>& train_keys() {
  static const TrainConfig d;
  return train_keys_of(d);
}

const SettingsTable& train_settings() {
  return train_keys().table();
}
const SettingsTable& train_ppo_settings() {
  return ppo_keys().table();
}
const SettingsTable& train_warm_start_settings() {
  return warm_start_keys().table();
}
const SettingsTable& train_search_settings() {
  return search_keys().table();
}
const SettingsTable& train_network_settings() {
  return paper_network_keys().table();
}
const SettingsTable& train_eval_settings() {
  return eval_keys().table();
}

namespace {

using gpu::ScenarioGrid;
using gpu::TrainParams;
using GpuConfig = gpu::TrainConfig;

// A non-empty list of text (its own message when empty).
std::vector<std::string> non_empty_list(const YAML::Node& n, const std::string& source,
                                        const std::string& what) {
  std::vector<std::string> out = yaml_strings(n, source, what);
  if (out.empty()) throw InputError(yaml_where(source, n), what + " is empty");
  return out;
}

// A cap is a positive number of cluster-hours or inf (no cap: min_feasible).
std::vector<double> yaml_caps(const SettingsTable& keys, const YAML::Node& n,
                              const std::string& source) {
  if (!n.IsSequence() || n.size() == 0)
    throw InputError(yaml_where(source, n), "teacher_caps must be a non-empty list");
  const SettingKey& key = keys.key("teacher_caps");
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

const BoundSettings<ScenarioGrid>& scenario_keys() {
  static const ScenarioGrid d;
  static const BoundSettings<ScenarioGrid> keys(
      "scenario key",
      {bind(SettingKey("clusters", T::kList, "cluster presets or files (relative to the config)"),
            &ScenarioGrid::clusters, d,
            [](const YAML::Node& n, const std::string& source) {
              return non_empty_list(n, source, "clusters");
            }),
       bind(SettingKey("loads", T::kList, "loads (see load_reference_gpus)").range(1e-6, 1e6),
            &ScenarioGrid::loads, d),
       bind(SettingKey("admissions", T::kList, "immediate and/or queue"), &ScenarioGrid::admissions,
            d,
            [](const YAML::Node& n, const std::string& source) {
              return non_empty_list(n, source, "admissions");
            }),
       bind(SettingKey("seeds", T::kList,
                       "job-drawing seeds; one episode per (cluster, load, admission, seed)")
                .range(0, 1L << 53),
            &ScenarioGrid::seeds, d),
       bind(SettingKey("jobs", T::kInteger, "jobs per episode").range(1, 10000000),
            &ScenarioGrid::jobs, d)});
  return keys;
}

// A grid's mapping read over `grid`.
void read_grid(const YAML::Node& g, const std::string& source, ScenarioGrid& grid) {
  scenario_keys().table().check_known(g, source);
  scenario_keys().read(g, source, grid);
}

const BoundSettings<TrainParams>& optimiser_keys() {
  static const TrainParams d;
  static const BoundSettings<TrainParams> keys(
      "optimiser key",
      {bind(SettingKey("lr", T::kNumber, "Adam's learning rate").range(1e-12, 1), &TrainParams::lr,
            d),
       bind(SettingKey("minibatch", T::kInteger, "decisions per gradient step").range(1, 1 << 24),
            &TrainParams::minibatch, d),
       bind(SettingKey("epochs", T::kInteger, "passes over the aggregate per round").range(1, 1000),
            &TrainParams::epochs, d),
       bind(SettingKey("value_coef", T::kNumber, "weight of the value loss").range(0, 1e6),
            &TrainParams::value_coef, d),
       bind(SettingKey("grad_clip", T::kNumber, "gradient norm clip").range(0, 1e6),
            &TrainParams::grad_clip, d)});
  return keys;
}

const BoundSettings<gpu::Architecture>& gpu_network_keys() {
  static const gpu::Architecture d;
  const auto graph = [](auto member) { return nested(&gpu::Architecture::graph, member); };
  static const BoundSettings<gpu::Architecture> keys(
      "network key",
      {bind(module_width_key(), graph(&inference::MessagePassingShape::module_width), d),
       bind(SettingKey("layers", T::kList, "output width of each message-passing layer")
                .range(1, 4096),
            graph(&inference::MessagePassingShape::layers), d),
       bind(SettingKey("hidden", T::kInteger, "H: width of the candidate scorer").range(1, 4096),
            &gpu::Architecture::hidden, d)});
  return keys;
}

const BoundSettings<GpuConfig>& gpu_train_keys_of(const GpuConfig& d) {
  static const BoundSettings<GpuConfig> keys(
      "GPU training config key",
      {bind_with<GpuConfig>(version_key(), version_checked<GpuConfig>()),
       bind_with<GpuConfig>(gpu_world_key(), world_checked<GpuConfig>()),
       bind(SettingKey("name", T::kText, "label in logs and plots"), &GpuConfig::name, d),
       bind(SettingKey("workload", T::kList,
                       "built-in fitted workloads or files relative to this one (each with every "
                       "scenario)"),
            &GpuConfig::workloads, d,
            [](const YAML::Node& n, const std::string& source) {
              std::vector<std::string> list = yaml_strings(n, source, "workload");
              if (list.empty()) throw InputError(yaml_where(source, n), "workload: empty list");
              return list;
            }),
       bind(SettingKey("load_reference_gpus", T::kInteger,
                       "the generator runs at load x cluster GPUs / this (0: loads as given)")
                .range(0, 1 << 24),
            &GpuConfig::load_reference_gpus, d),
       bind(SettingKey("order", T::kChoice, "queue order").one_of({"edf", "submission"}),
            &GpuConfig::order, d),
       bind_with<GpuConfig>(
           SettingKey("train", T::kMapping, "training scenarios: table `train.gpu.scenarios`"),
           mapping_into(scenario_keys, &GpuConfig::train, "train")),
       // Read after `train`, whose scenarios it starts from.
       bind_with<GpuConfig>(
           SettingKey("validation", T::kMapping,
                      "validation scenarios: table `train.gpu.scenarios`; seeds must differ")
               .defaults_to("train's, seeds " + default_text_of(gpu::kValidationSeeds)),
           [](const SettingsTable& keys, const YAML::Node& r, const std::string& source,
              GpuConfig& c) {
             c.validation = gpu::default_validation(c.train);
             read_grid(keys.mapping(r, source, "validation"), source, c.validation);
           }),
       bind_with<GpuConfig>(
           SettingKey("teacher_caps", T::kList,
                      "caps (cluster-hours) searched per episode for the capped:X teacher; inf = "
                      "none")
               .range(1e-9, 1e9)
               .defaults_to("[0.01 … 2, inf]"),
           [](const SettingsTable& keys, const YAML::Node& r, const std::string& source,
              GpuConfig& c) { c.teacher_caps = yaml_caps(keys, r["teacher_caps"], source); }),
       bind(SettingKey("teacher", T::kChoice,
                       "the labels: cap (the searched capped:X) or rollout (the rollout search "
                       "over it, model/README.md)")
                .one_of({"cap", "rollout"}),
            &GpuConfig::teacher, d),
       bind(SettingKey("teacher_lookahead", T::kInteger,
                       "teacher: rollout: the arrivals each rollout looks ahead")
                .range(1, 1L << 30),
            &GpuConfig::teacher_lookahead, d),
       bind(SettingKey("iterations", T::kInteger,
                       "round 0 follows the teacher, the others the network (DAgger)")
                .range(1, 100000),
            &GpuConfig::iterations, d),
       bind(SettingKey("dagger_sample", T::kBoolean,
                       "DAgger rounds sample the network's choice instead of its arg-max"),
            &GpuConfig::dagger_sample, d),
       bind(SettingKey("record_retries", T::kBoolean,
                       "record every retry of a queued job (false: only when an answer changes)"),
            &GpuConfig::record_retries, d),
       bind(SettingKey("episode_decisions", T::kInteger,
                       "decisions kept per episode and round (a seeded sample)")
                .range(1, 1L << 32),
            &GpuConfig::episode_decisions, d),
       bind(SettingKey("dataset_max", T::kInteger,
                       "decisions kept in the aggregate, an equal share per round")
                .range(1, 1L << 32),
            &GpuConfig::dataset_max, d),
       bind(seed_key(), &GpuConfig::seed, d),
       bind(time_limit_key(), &GpuConfig::time_limit_minutes, d),
       bind(workers_key(), &GpuConfig::workers, d),
       bind_with<GpuConfig>(SettingKey("optimiser", T::kMapping, "table `train.gpu.optimiser`"),
                            mapping_into(optimiser_keys, &GpuConfig::optimiser, "optimiser")),
       bind_with<GpuConfig>(SettingKey("network", T::kMapping, "table `train.gpu.network`"),
                            mapping_into(gpu_network_keys, &GpuConfig::architecture, "network"))});
  return keys;
}

}  // namespace

const BoundSettings<gpu::TrainConfig>& gpu_train_keys() {
  static const gpu::TrainConfig d;
  return gpu_train_keys_of(d);
}

const SettingsTable& gpu_train_settings() {
  return gpu_train_keys().table();
}

const SettingsTable& gpu_train_scenario_settings() {
  return scenario_keys().table();
}

const SettingsTable& gpu_train_optimiser_settings() {
  return optimiser_keys().table();
}

const SettingsTable& gpu_train_network_settings() {
  return gpu_network_keys().table();
}

void check_train_config_version(const YAML::Node& root, const std::string& source) {
  if (!root["pacml_train"])
    throw InputError(source, "not a pacml training config (missing 'pacml_train: 1')");
  if (train_settings().integer(root, source, "pacml_train") != 1)
    throw InputError(yaml_where(source, root["pacml_train"]),
                     "unsupported training config version (this pacml reads 1)");
}

}  // namespace pacml
