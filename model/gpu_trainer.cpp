#include "model/gpu_trainer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/cluster/cluster_spec.h"
#include "core/config/train_config_keys.h"
#include "core/features/gpu_features.h"
#include "core/graph/job_graph.h"
#include "core/inference/gpu_learned_policy.h"
#include "core/parallel/duration_model.h"
#include "core/parallel/parallel_job.h"
#include "core/parallel/physical_constants.h"
#include "core/parallel/physical_estimator.h"
#include "core/util/error.h"
#include "core/util/yaml_input.h"
#include "model/trainer.h"
#include "sim/engine/workload.h"
#include "sim/experiment/evaluation.h"
#include "sim/gpu/fitted_workload.h"
#include "sim/gpu/gpu_replay.h"
#include "sim/gpu/hindsight_search.h"
#include "sim/report/csv.h"
#include "sim/report/progress.h"
#include "sim/workload/paths.h"

namespace pacml::model {

// ---------------------------------------------------------------- config

namespace {

nlohmann::json grid_json(const GpuScenarioGrid& g) {
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

nlohmann::json GpuTrainConfig::to_json() const {
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

void parse_grid(const YAML::Node& g, const std::string& source, GpuScenarioGrid& out) {
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
    for (const auto& a : out.admissions)
      sim::parse_admission(a, yaml_where(source, g["admissions"]));
  }
  if (g["seeds"]) {
    out.seeds.clear();
    for (long seed : keys.integers(g, source, "seeds"))
      out.seeds.push_back(static_cast<std::uint64_t>(seed));
  }
  if (g["jobs"]) out.jobs = keys.integer(g, source, "jobs");
}

void parse_optimiser(const YAML::Node& o, const std::string& source, GpuTrainParams& p) {
  const SettingsTable& keys = gpu_train_optimiser_settings();
  keys.check_known(o, source);
  if (o["lr"]) p.lr = keys.number(o, source, "lr");
  if (o["minibatch"]) p.minibatch = static_cast<int>(keys.integer(o, source, "minibatch"));
  if (o["epochs"]) p.epochs = static_cast<int>(keys.integer(o, source, "epochs"));
  if (o["value_coef"]) p.value_coef = keys.number(o, source, "value_coef");
  if (o["grad_clip"]) p.grad_clip = keys.number(o, source, "grad_clip");
}

void parse_network(const YAML::Node& n, const std::string& source, inference::GpuArchitecture& a) {
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
void parse_scalars(const YAML::Node& r, const std::string& source, GpuTrainConfig& c) {
  const SettingsTable& keys = gpu_train_settings();
  if (r["name"]) c.name = keys.text(r, source, "name");
  if (r["workload"]) {
    c.workloads = keys.list(r, source, "workload");
    if (c.workloads.empty())
      throw InputError(yaml_where(source, r["workload"]), "workload: empty list");
    for (std::string& w : c.workloads)
      if (!sim::is_builtin_workload(w) && w.front() != '/') w = sim::directory_of(source) + "/" + w;
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
void check_seeds_disjoint(const GpuTrainConfig& c, const YAML::Node& where) {
  for (auto s : c.validation.seeds)
    if (std::count(c.train.seeds.begin(), c.train.seeds.end(), s))
      throw InputError(yaml_where(c.source, where),
                       "validation seed " + std::to_string(s) + " is also a training seed");
}

}  // namespace

std::string train_config_world(const std::string& yaml_text, const std::string& source) {
  std::istringstream in(yaml_text);
  const YAML::Node root = parse_yaml(in, source);
  if (!root.IsMap() || !root["world"]) return "paper";
  const std::string world = yaml_scalar(root["world"], source, "world");
  if (world != "gpu" && world != "paper")
    throw InputError(
        yaml_where(source, root["world"]),
        "world must be 'gpu' (the GPU policy) or 'paper' (PAC-ML), not '" + world + "'");
  return world;
}

GpuTrainConfig parse_gpu_train_config(const std::string& yaml_text, const std::string& source) {
  std::istringstream in(yaml_text);
  const YAML::Node root = parse_yaml(in, source);
  return convert_yaml(root, source, [&](const YAML::Node& r) {
    GpuTrainConfig c;
    c.source = source;
    c.train = {{"ramp-a100-16x8"}, {1}, {"immediate", "queue"}, {1}, 2000};
    gpu_train_settings().check_known(r, source);
    check_train_config_version(r, source);
    if (train_config_world(yaml_text, source) != "gpu")
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

GpuTrainConfig load_gpu_train_config(const std::string& path) {
  std::ifstream in = open_input_file(path);
  std::stringstream text;
  text << in.rdbuf();
  return parse_gpu_train_config(text.str(), path);
}

// ---------------------------------------------------------------- episodes

namespace {

struct Scenario {
  int workload = 0;       // into Setup::workloads
  std::string cluster;    // as configured
  int cluster_index = 0;  // into Setup::estimators
  double load = 1;        // as configured
  double generator_load = 1;
  sim::Admission admission = sim::Admission::kImmediate;
};

struct Episode {
  Scenario scenario;
  std::uint64_t seed = 0;
  std::vector<sim::GpuJob> jobs;
  double cap = INFINITY;  // the teacher's, searched on these jobs
  double teacher_met = 0, min_feasible_met = 0;
};

// Runs fn(i, worker) for i in [0, n) on `threads` threads; rethrows the
// first error in index order.
template <typename Fn>
void parallel_for(size_t n, int threads, Fn fn) {
  std::vector<std::exception_ptr> errors(n);
  std::atomic<size_t> next{0};
  auto work = [&](int worker) {
    for (size_t i; (i = next++) < n;) {
      try {
        fn(i, worker);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const int t = std::max(1, std::min<int>(threads, static_cast<int>(n)));
  std::vector<std::thread> pool;
  for (int k = 1; k < t; ++k) pool.emplace_back(work, k);
  work(0);
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// The job graphs the network embeds, one per ParallelJob key, encoded as
// GpuLearnedPolicy encodes them (the unpartitioned step graph at the job's
// global batch, physical edge sizes).
struct GraphTable {
  std::vector<features::JobFeatures> graphs;
  std::map<std::string, int> index;
  void add(const ParallelJob& job);
  int of(const ParallelJob* job) const;
};

void GraphTable::add(const ParallelJob& job) {
  if (index.count(job.key())) return;
  index[job.key()] = static_cast<int>(graphs.size());
  graphs.push_back(features::gpu_job_features(job));
}

int GraphTable::of(const ParallelJob* job) const {
  if (!job) throw std::logic_error("GPU trainer: the replay's decision input names no job");
  return index.at(job->key());
}

// Everything fixed before the first iteration.
struct Setup {
  std::vector<sim::FittedWorkload> workloads;                        // as the config lists them
  std::vector<std::shared_ptr<const PhysicalEstimator>> estimators;  // one per distinct cluster
  std::map<std::string, int> cluster_index;
  std::vector<Episode> train, validation;
  GraphTable graphs;
  sim::QueueOrder order = sim::QueueOrder::kEarliestDeadline;
  int workers = 1;
  // Duration models are not thread-safe: each worker keeps one per cluster.
  // Their answers do not depend on what they cached, so results do not
  // depend on which worker ran an episode.
  mutable std::vector<std::map<int, std::unique_ptr<DurationModel>>> durations;
  DurationModel& durations_of(int worker, int cluster) const;
};

DurationModel& Setup::durations_of(int worker, int cluster) const {
  auto& slot = durations.at(static_cast<size_t>(worker))[cluster];
  if (!slot) slot = std::make_unique<DurationModel>(estimators.at(cluster));
  return *slot;
}

// The grid's episodes on one cluster with one workload.
void add_episodes(const GpuTrainConfig& c, const GpuScenarioGrid& g, int workload,
                  const std::string& cluster, Setup& s, std::vector<Episode>& out) {
  if (!s.cluster_index.count(cluster)) {
    s.cluster_index[cluster] = static_cast<int>(s.estimators.size());
    s.estimators.push_back(std::make_shared<const PhysicalEstimator>(
        load_cluster(cluster, c.source + ": clusters"), PhysicalConstants::calibrated()));
  }
  const int index = s.cluster_index[cluster];
  const double gpus = s.estimators[index]->cluster().num_gpus();
  for (double load : g.loads)
    for (const std::string& a : g.admissions)
      for (std::uint64_t seed : g.seeds) {
        Episode e;
        e.scenario.workload = workload;
        e.scenario.cluster = cluster;
        e.scenario.cluster_index = index;
        e.scenario.load = load;
        e.scenario.generator_load =
            c.load_reference_gpus > 0 ? load * gpus / c.load_reference_gpus : load;
        e.scenario.admission = sim::parse_admission(a, c.source + ": admissions");
        e.seed = seed;
        out.push_back(std::move(e));
      }
}

std::vector<Episode> make_episodes(const GpuTrainConfig& c, const GpuScenarioGrid& g, Setup& s) {
  std::vector<Episode> out;
  for (size_t w = 0; w < s.workloads.size(); ++w)
    for (const std::string& cluster : g.clusters)
      add_episodes(c, g, static_cast<int>(w), cluster, s, out);
  return out;
}

// ---------------------------------------------------------------- policies

// The candidate index of `gpus` (0, "do not start now", for 0 GPUs).
int candidate_index(const features::GpuDecisionFeatures& f, int gpus) {
  for (size_t a = 1; a < f.gpus.size(); ++a)
    if (f.gpus[a] == gpus) return static_cast<int>(a);
  return 0;
}

// The teacher: the GPU policy capped:X (core/policy/gpu_policy.h): the
// fewest GPUs that meet the deadline now if that run costs at most `cap`
// cluster-hours, else the job is turned away.
GpuPolicy capped_teacher(double cap) {
  GpuPolicy teacher;
  teacher.kind = GpuPolicy::Kind::kCapped;
  teacher.name = "teacher";
  teacher.cap = cap;
  return teacher;
}

double replay_met(const Setup& s, const Episode& e, const GpuPolicy& policy, int worker,
                  std::uint64_t rng_seed) {
  sim::GpuReplayConfig config;
  config.policy = policy;
  config.admission = e.scenario.admission;
  config.order = s.order;
  config.seed = rng_seed;
  DurationModel& d = s.durations_of(worker, e.scenario.cluster_index);
  return sim::replay_on_gpus(e.jobs, d, config).stats.deadline_met_rate;
}

double teacher_met(const Setup& s, const Episode& e, double cap, int worker) {
  return replay_met(s, e, capped_teacher(cap), worker, e.seed);
}

// The cap meeting the most deadlines on the episode's jobs (ties: the
// larger), and min_feasible's result for comparison.
void search_cap(const Setup& s, Episode& e, const std::vector<double>& caps, int worker) {
  e.teacher_met = -1;
  for (double cap : caps) {  // ascending
    const double met = teacher_met(s, e, cap, worker);
    if (met >= e.teacher_met) e.teacher_met = met, e.cap = cap;
  }
  e.min_feasible_met =
      replay_met(s, e, GpuPolicy::parse("min_feasible", "gpu trainer"), worker, e.seed);
}

// `keep` of the batch's decisions, drawn without replacement with `rng`, in
// their original order.
GpuDecisionBatch subsample(const GpuDecisionBatch& all, size_t keep, Rng& rng) {
  std::vector<size_t> idx(all.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  for (size_t i = 0; i < keep; ++i)
    std::swap(idx[i], idx[i + rng.below(static_cast<std::uint64_t>(idx.size() - i))]);
  idx.resize(keep);
  std::sort(idx.begin(), idx.end());
  GpuDecisionBatch out;
  for (size_t i : idx) out.add_from(all, i);
  return out;
}

// One episode's decisions, labelled by the teacher.
// How often the followed action was the teacher's, over the decisions with
// a choice, by admission mode and by what the teacher did (hold or start):
// in a queue one wrong start among a waiting job's many retries starts it.
struct Agreement {
  long n[2][2] = {}, agree[2][2] = {};  // [queue][teacher starts]
  void add(bool queue, bool start, bool same) { ++n[queue][start], agree[queue][start] += same; }
  void add(const Agreement& o);
  double rate() const;
  std::string text() const;
};

void Agreement::add(const Agreement& o) {
  for (int q = 0; q < 2; ++q)
    for (int a = 0; a < 2; ++a) n[q][a] += o.n[q][a], agree[q][a] += o.agree[q][a];
}

double Agreement::rate() const {
  const double all = n[0][0] + n[0][1] + n[1][0] + n[1][1];
  return all > 0 ? (agree[0][0] + agree[0][1] + agree[1][0] + agree[1][1]) / all : 0;
}

std::string fmt(double v, int digits = 4) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string Agreement::text() const {
  std::string out = fmt(rate(), 3) + " (";
  const char* mode[2] = {"immediate", "queue"};
  const char* what[2] = {"holds", "starts"};
  for (int q = 0; q < 2; ++q)
    for (int a = 0; a < 2; ++a)
      if (n[q][a] > 0)
        out += std::string(out.back() == '(' ? "" : ", ") + mode[q] + " " + what[a] + " " +
               fmt(static_cast<double>(agree[q][a]) / static_cast<double>(n[q][a]), 3);
  return out + ")";
}

struct Rollout {
  GpuDecisionBatch decisions;  // at most episode_decisions of them
  double met = 0;
  Agreement agreement;
};

// The rollout's chooser: follows the teacher (no policy) or the network, and
// records the decisions with a choice, labelled by the teacher.
class Recorder {
 public:
  // `searched`: the rollout search's action at each decision, in order
  // (teacher: rollout); null: the capped teacher labels.
  Recorder(const Setup& s, const GpuTrainConfig& c, const Episode& e,
           inference::GpuLearnedPolicy* policy, const std::vector<int>* searched, Rollout& out)
      : s_(s), c_(c), e_(e), policy_(policy), searched_(searched), out_(out) {}
  int operator()(const GpuDecisionInput& in, Rng& rng);

 private:
  int teacher_action(const GpuDecisionInput& in);
  const Setup& s_;
  const GpuTrainConfig& c_;
  const Episode& e_;
  inference::GpuLearnedPolicy* policy_;
  const std::vector<int>* searched_;
  size_t decisions_ = 0;
  Rollout& out_;
  // Per job (model, deadline): what the teacher and the policy said at its
  // last recorded decision, as label × 8 + chosen.
  std::map<std::pair<const ParallelJob*, double>, int> last_;
};

int Recorder::teacher_action(const GpuDecisionInput& in) {
  const size_t d = decisions_++;
  if (!searched_) return capped_min_feasible(in, e_.cap);
  if (d >= searched_->size())
    throw std::logic_error("gpu trainer: the rollout search labelled fewer decisions than made");
  return (*searched_)[d];
}

int Recorder::operator()(const GpuDecisionInput& in, Rng& rng) {
  features::GpuDecisionFeatures f;
  int chosen = -1;
  if (policy_) {
    inference::GpuDecision d = policy_->decide(in, rng);
    chosen = d.action;
    f = std::move(d.features);
  } else {
    f = features::gpu_decision_features(in);
  }
  const int label = candidate_index(f, teacher_action(in));
  if (chosen < 0) chosen = label;
  // A decision with one candidate (nothing can start now) teaches nothing.
  if (f.gpus.size() < 2) return features::gpus_for_action(f, chosen);
  // A queue retries a waiting job at every completion, so a job held for
  // hours counts dozens of times. Without record_retries a retry is recorded
  // only when the teacher or the policy changes its mind.
  const auto [it, first] = last_.try_emplace({in.job, in.deadline}, label * 8 + chosen);
  if (!c_.record_retries && !first && it->second == label * 8 + chosen)
    return features::gpus_for_action(f, chosen);
  it->second = label * 8 + chosen;
  out_.agreement.add(e_.scenario.admission == sim::Admission::kQueue, label > 0, chosen == label);
  out_.decisions.add(s_.graphs.of(in.job), f, label);
  return features::gpus_for_action(f, chosen);
}

// teacher: rollout: the rollout search's action at every decision of the
// replay rollout() makes (following the greedy network, or the search
// itself when there is no model yet), with the capped teacher as its base.
std::vector<int> searched_labels(const Setup& s, const GpuTrainConfig& c, const Episode& e,
                                 const std::shared_ptr<const inference::GpuLearnedModel>& model,
                                 std::uint64_t rng_seed, int worker) {
  sim::HindsightSearchOptions options;
  options.base = capped_teacher(e.cap);
  options.lookahead = c.teacher_lookahead;
  options.seed = rng_seed;
  options.progress = 0;
  options.admission = e.scenario.admission;
  options.order = s.order;
  DurationModel& d = s.durations_of(worker, e.scenario.cluster_index);
  if (!model) return sim::hindsight_labels(e.jobs, d, options, nullptr);
  inference::GpuLearnedPolicy network(model, false);
  const GpuPolicy follow = GpuPolicy::of_chooser(
      "pacml:train",
      [&](const GpuDecisionInput& in, Rng& rng) { return network.decide(in, rng).gpus(); });
  return sim::hindsight_labels(e.jobs, d, options, &follow);
}

// Follows the teacher (model null) or the network, greedy or sampled with
// the replay's RNG seeded by `rng_seed`; the teacher labels every decision.
Rollout rollout(const Setup& s, const GpuTrainConfig& c, const Episode& e,
                const std::shared_ptr<const inference::GpuLearnedModel>& model,
                std::uint64_t rng_seed, int worker) {
  Rollout out;
  std::unique_ptr<inference::GpuLearnedPolicy> policy;
  if (model) policy = std::make_unique<inference::GpuLearnedPolicy>(model, c.dagger_sample);
  std::vector<int> searched;
  if (c.teacher == "rollout") searched = searched_labels(s, c, e, model, rng_seed, worker);
  Recorder recorder(s, c, e, policy.get(), c.teacher == "rollout" ? &searched : nullptr, out);
  const GpuPolicy follow = GpuPolicy::of_chooser(
      "rollout", [&recorder](const GpuDecisionInput& in, Rng& rng) { return recorder(in, rng); });
  out.met = replay_met(s, e, follow, worker, rng_seed);
  // A sample keeps the episodes' weights comparable and the dataset's
  // memory bounded.
  if (out.decisions.size() > static_cast<size_t>(c.episode_decisions)) {
    Rng keep(sim::derive_seed(rng_seed, 1));
    out.decisions = subsample(out.decisions, static_cast<size_t>(c.episode_decisions), keep);
  }
  // The value head's target: what the episode achieved from here on, taken
  // as the whole episode's met share (a simple, low-variance target; the
  // policy does not use the value).
  std::fill(out.decisions.target.begin(), out.decisions.target.end(), static_cast<float>(out.met));
  return out;
}

double greedy_met(const Setup& s, const Episode& e,
                  const std::shared_ptr<const inference::GpuLearnedModel>& model, int worker) {
  inference::GpuLearnedPolicy policy(model, false);
  const GpuPolicy p = GpuPolicy::of_chooser(
      "pacml:train",
      [&](const GpuDecisionInput& in, Rng& rng) { return policy.decide(in, rng).gpus(); });
  return replay_met(s, e, p, worker, e.seed);
}

// ---------------------------------------------------------------- setup

void generate(const Setup& s, long jobs, std::vector<Episode>& episodes) {
  parallel_for(episodes.size(), s.workers, [&](size_t i, int worker) {
    Episode& e = episodes[i];
    DurationModel& d = s.durations_of(worker, e.scenario.cluster_index);
    e.jobs = sim::generate_jobs(s.workloads.at(static_cast<size_t>(e.scenario.workload)),
                                e.scenario.generator_load, jobs, e.seed, d);
  });
}

std::unique_ptr<Setup> make_setup(const GpuTrainConfig& c, int workers) {
  auto s = std::make_unique<Setup>();
  for (const std::string& w : c.workloads) s->workloads.push_back(sim::load_workload_named(w));
  s->order = sim::parse_queue_order(c.order, c.source + ": order");
  s->workers = workers;
  s->durations.resize(static_cast<size_t>(workers));
  s->train = make_episodes(c, c.train, *s);
  s->validation = make_episodes(c, c.validation, *s);
  generate(*s, c.train.jobs, s->train);
  generate(*s, c.validation.jobs, s->validation);
  for (const auto* set : {&s->train, &s->validation})
    for (const Episode& e : *set)
      for (const sim::GpuJob& j : e.jobs) s->graphs.add(*j.work);
  for (auto* set : {&s->train, &s->validation})
    parallel_for(set->size(), workers,
                 [&](size_t i, int worker) { search_cap(*s, (*set)[i], c.teacher_caps, worker); });
  return s;
}

// ---------------------------------------------------------------- iterations

// Mean of f(episode) over the episodes, and per admission mode.
struct MetShares {
  double all = 0, immediate = -1, queue = -1;
};

template <typename F>
MetShares mean_met(const std::vector<Episode>& episodes, F f) {
  MetShares m;
  double sum[2] = {0, 0}, n[2] = {0, 0};
  for (size_t i = 0; i < episodes.size(); ++i) {
    const int q = episodes[i].scenario.admission == sim::Admission::kQueue;
    sum[q] += f(i), n[q] += 1;
  }
  m.all = (sum[0] + sum[1]) / std::max(1.0, n[0] + n[1]);
  if (n[0] > 0) m.immediate = sum[0] / n[0];
  if (n[1] > 0) m.queue = sum[1] / n[1];
  return m;
}

std::string met_text(const MetShares& m) {
  std::string s = fmt(m.all, 3);
  if (m.immediate >= 0 && m.queue >= 0)
    s += " (immediate " + fmt(m.immediate, 3) + ", queue " + fmt(m.queue, 3) + ")";
  return s;
}

// One iteration's rollouts on the training episodes, gathered in episode order.
struct IterationData {
  GpuDecisionBatch decisions;
  Agreement agreement;
  double met = 0;
};

IterationData run_rollouts(const Setup& s, const GpuTrainConfig& c, long iteration,
                           const std::shared_ptr<const inference::GpuLearnedModel>& model) {
  std::vector<Rollout> r(s.train.size());
  parallel_for(r.size(), s.workers, [&](size_t i, int worker) {
    const std::uint64_t rng_seed =
        sim::derive_seed(c.seed, 2000000 + static_cast<std::uint64_t>(iteration) * r.size() + i);
    r[i] = rollout(s, c, s.train[i], model, rng_seed, worker);
  });
  IterationData out;
  for (const Rollout& x : r) {
    for (size_t k = 0; k < x.decisions.size(); ++k) out.decisions.add_from(x.decisions, k);
    out.agreement.add(x.agreement);
    out.met += x.met / static_cast<double>(r.size());
  }
  return out;
}

// DAgger's aggregate under a size cap: every iteration keeps an equal share
// (iteration k's rollouts 1/(k+1) of the cap; the older ones the rest, each
// a seeded sample), so the states of the early, teacher-led iterations stay
// represented as the network's own states come in.
void aggregate(GpuDecisionBatch& dataset, const GpuDecisionBatch& fresh, long iteration, size_t cap,
               Rng& rng) {
  size_t keep_new = fresh.size(), keep_old = dataset.size();
  if (keep_old + keep_new > cap) {
    keep_new =
        std::min(fresh.size(), std::max(cap / static_cast<size_t>(iteration + 1), cap - keep_old));
    keep_old = std::min(dataset.size(), cap - keep_new);
  }
  GpuDecisionBatch out =
      keep_old < dataset.size() ? subsample(dataset, keep_old, rng) : std::move(dataset);
  const GpuDecisionBatch added = keep_new < fresh.size() ? subsample(fresh, keep_new, rng) : fresh;
  for (size_t k = 0; k < added.size(); ++k) out.add_from(added, k);
  dataset = std::move(out);
}

std::vector<double> validate(const Setup& s,
                             const std::shared_ptr<const inference::GpuLearnedModel>& model) {
  std::vector<double> met(s.validation.size());
  parallel_for(met.size(), s.workers, [&](size_t i, int worker) {
    met[i] = greedy_met(s, s.validation[i], model, worker);
  });
  return met;
}

void write_plot(const std::string& dir, const std::string& title) {
  std::ostringstream gp;
  gp << "set terminal pngcairo size 1000,650 noenhanced\nset output 'curve.png'\n"
     << "set datafile separator ','\nset key outside right\nset grid\n"
     << "set xlabel 'iteration (0: the teacher''s rollouts; then DAgger)'\n"
     << "set ylabel 'validation deadlines met'\nset y2label 'training accuracy'\n"
     << "set y2range [0:1]\nset ytics nomirror\nset y2tics\n"
     // A margin, so that a line at the top (the teacher's) is not the border.
     << "set offsets 0, 0, graph 0.05, graph 0.05\n"
     << "set title '" << title << "'\n"
     << "plot 'curve.csv' every ::1 using 1:9 with linespoints lw 2 pt 7 title 'learned (greedy)', "
     << "'' every ::1 using 1:10 with lines lw 1 dt 2 title 'min_feasible', "
     << "'' every ::1 using 1:11 with lines lw 2 dt 3 title 'teacher (searched cap)', "
     << "'' every ::1 using 1:6 axes x1y2 with lines lw 1 title 'accuracy'\n";
  sim::write_text_file(dir + "/curve.gp", gp.str());
  const std::string cmd = "cd '" + dir + "' && gnuplot curve.gp >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    // The data and the script stay; a missing gnuplot only costs the PNG.
  }
}

}  // namespace

GpuTrainSummary train_gpu(const GpuTrainConfig& config, const GpuTrainOptions& options) {
  if (options.out_dir.empty()) throw InputError("--out", "an output directory is required");
  const auto start = std::chrono::steady_clock::now();
  auto wall = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto say = [&](const std::string& line) {
    if (options.verbose) std::cerr << line << std::endl;
  };
  const std::string dir = options.out_dir;
  sim::make_directories(dir);
  const long iterations = options.iterations >= 0 ? options.iterations : config.iterations;
  const double time_limit = 60.0 * (options.time_limit_minutes >= 0 ? options.time_limit_minutes
                                                                    : config.time_limit_minutes);
  const int workers = options.workers >= 1 ? options.workers : config.workers;
  sim::write_text_file(dir + "/config.json", config.to_json().dump(2) + "\n");
  const std::string revision = git_revision(sim::directory_of(config.source));

  say("pacml train: " + config.name + " — GPU policy, " + std::to_string(workers) +
      " workers; drawing jobs and searching the teacher's cap per episode");
  const std::unique_ptr<Setup> setup = make_setup(config, workers);
  const Setup& s = *setup;
  const MetShares val_mf =
      mean_met(s.validation, [&](size_t i) { return s.validation[i].min_feasible_met; });
  const MetShares val_teacher =
      mean_met(s.validation, [&](size_t i) { return s.validation[i].teacher_met; });
  const MetShares train_teacher =
      mean_met(s.train, [&](size_t i) { return s.train[i].teacher_met; });
  say(std::to_string(s.train.size()) + " training and " + std::to_string(s.validation.size()) +
      " validation episodes, " + std::to_string(s.graphs.graphs.size()) + " job graphs; " +
      fmt(wall(), 1) + " s\n  training teacher " + met_text(train_teacher) +
      "\n  validation: min_feasible " + met_text(val_mf) + ", teacher " + met_text(val_teacher));

  GpuTorchNetwork net(config.architecture, config.seed, config.optimiser.lr);
  nlohmann::json results = {{"iterations", 0}, {"decisions", 0}};
  auto weights = [&]() {
    nlohmann::json training = config.to_json();
    training["results"] = results;
    training["results"]["wall_seconds"] = wall();
    return net.export_weights(
        inference::make_gpu_metadata(config.architecture, training, revision));
  };

  std::ofstream curve(dir + "/curve.csv");
  curve << "iteration,decisions,dataset,loss,value_loss,accuracy,rollout_agreement,rollout_met,"
           "val_learned,val_min_feasible,val_teacher,wall_seconds\n";
  sim::ProgressBar bar("train", static_cast<size_t>(std::max<long>(iterations, 1)),
                       options.progress);
  GpuDecisionBatch dataset;
  GpuTrainSummary sum;
  long it = 0;
  for (; it < iterations && wall() < time_limit; ++it) {
    std::shared_ptr<const inference::GpuLearnedModel> model;
    if (it > 0) model = std::make_shared<const inference::GpuLearnedModel>(weights(), "training");
    const double t0 = wall();
    IterationData data = run_rollouts(s, config, it, model);
    const double t1 = wall();
    Rng keep(sim::derive_seed(config.seed, 4000000 + static_cast<std::uint64_t>(it)));
    aggregate(dataset, data.decisions, it, static_cast<size_t>(config.dataset_max), keep);
    Rng shuffle(sim::derive_seed(config.seed, 3000000 + static_cast<std::uint64_t>(it)));
    const GpuTrainStats st = net.train(s.graphs.graphs, dataset, config.optimiser, shuffle);
    const double t2 = wall();

    const auto eval_model =
        std::make_shared<const inference::GpuLearnedModel>(weights(), "validation");
    const std::vector<double> met = validate(s, eval_model);
    const MetShares learned = mean_met(s.validation, [&](size_t i) { return met[i]; });
    const double agreement = data.agreement.rate();
    results = {{"iterations", it + 1},
               {"decisions", dataset.size()},
               {"loss", st.loss},
               {"accuracy", st.accuracy},
               {"validation_learned", learned.all},
               {"validation_min_feasible", val_mf.all},
               {"validation_teacher", val_teacher.all},
               {"best_validation", std::max(sum.best_validation, learned.all)}};
    if (learned.all > sum.best_validation) {
      sum.best_validation = learned.all;
      inference::write_weights_file(dir + "/best.pacw", weights());
    }
    curve << it << "," << data.decisions.size() << "," << dataset.size() << ","
          << sim::csv_number(st.loss) << "," << sim::csv_number(st.value_loss) << ","
          << sim::csv_number(st.accuracy) << "," << sim::csv_number(agreement) << ","
          << sim::csv_number(data.met) << "," << sim::csv_number(learned.all) << ","
          << sim::csv_number(val_mf.all) << "," << sim::csv_number(val_teacher.all) << ","
          << sim::csv_number(wall()) << "\n";
    curve.flush();
    if (options.progress != 1)
      say("iteration " + std::to_string(it) + ": " + std::to_string(data.decisions.size()) +
          " decisions (dataset " + std::to_string(dataset.size()) + "), rollouts met " +
          fmt(data.met, 3) + ", followed the teacher on " + data.agreement.text() + " | loss " +
          fmt(st.loss) + " accuracy " + fmt(st.accuracy, 3) + " | validation learned " +
          met_text(learned) + " | " + fmt(wall(), 0) + " s (rollouts " + fmt(t1 - t0, 0) +
          " s, training " + fmt(t2 - t1, 0) + " s, validation " + fmt(wall() - t2, 0) + " s)");
    bar.update(static_cast<size_t>(it + 1));
  }
  bar.finish();
  inference::write_weights_file(dir + "/final.pacw", weights());
  write_plot(dir, config.name + ": validation deadlines met");

  sum.iterations = it;
  sum.decisions = static_cast<long>(dataset.size());
  sum.wall_seconds = wall();
  sum.validation_min_feasible = val_mf.all;
  sum.validation_teacher = val_teacher.all;
  sum.final_weights = dir + "/final.pacw";
  sum.best_weights = sim::file_exists(dir + "/best.pacw") ? dir + "/best.pacw" : "";
  say("done: " + std::to_string(it) + " iterations, " + fmt(sum.wall_seconds, 1) +
      " s; validation best " + fmt(sum.best_validation, 3) + " against min_feasible " +
      fmt(val_mf.all, 3) + " and the teacher " + fmt(val_teacher.all, 3) + "; weights " +
      sum.final_weights + (sum.best_weights.empty() ? "" : ", best " + sum.best_weights));
  return sum;
}

}  // namespace pacml::model
