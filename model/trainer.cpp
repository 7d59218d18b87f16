#include "model/trainer.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "core/config/train_config_keys.h"
#include "core/hw/thread_pinning.h"
#include "core/inference/learned_policy.h"
#include "core/policy/baselines.h"
#include "core/util/error.h"
#include "core/util/yaml_input.h"
#include "sim/engine/episode.h"
#include "sim/engine/policy_factory.h"
#include "sim/experiment/evaluation.h"
#include "sim/experiment/experiment.h"
#include "sim/report/csv.h"
#include "sim/report/progress.h"
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
                     "are read by the GPU trainer (model/gpu_trainer.h)");
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
  std::ifstream in = open_input_file(path);
  std::stringstream text;
  text << in.rdbuf();
  return parse_train_config(text.str(), path);
}

void compute_gae(const std::vector<float>& rewards, const std::vector<float>& values, double gamma,
                 double lambda, std::vector<float>& advantages, std::vector<float>& returns) {
  const size_t n = rewards.size();
  advantages.assign(n, 0.f);
  returns.assign(n, 0.f);
  double gae = 0;
  for (size_t k = n; k-- > 0;) {
    const double next = k + 1 < n ? values[k + 1] : 0.0;
    const double delta = rewards[k] + gamma * next - values[k];
    gae = delta + gamma * lambda * gae;
    advantages[k] = static_cast<float>(gae);
    returns[k] = static_cast<float>(gae + values[k]);
  }
}

std::string git_revision(const std::string& dir) {
  const std::string cmd = "git -C '" + dir + "' rev-parse --short HEAD 2>/dev/null";
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[128];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    ::pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out.empty() ? "unknown" : out;
}

void tune_allocator() {
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

namespace {

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

struct Setup {
  std::unique_ptr<sim::Experiment> experiment;
  std::vector<JobGraphPtr> population;  // distinct graphs of the training workload
  std::map<std::uint64_t, int> graph_index;
  GraphSet graph_set;
  features::Normalisers normalisers;
  nlohmann::json topology;
};

Setup make_setup(const TrainConfig& c) {
  sim::ExperimentSpec spec =
      // "default": the built-in zoo experiment the shipped model learned on
      // (pacml's default experiment before the GPU-cluster one).
      c.experiment == "default" || c.experiment == "paper-zoo"
          ? sim::paper_zoo_experiment()
          : sim::load_experiment_file(c.experiment, /*check_policies=*/false);
  if (!c.profile.empty()) spec.profile = c.profile;
  if (c.horizon > 0) spec.horizon = c.horizon;
  if (c.interarrival > 0) spec.interarrival = c.interarrival;
  if (!c.graphs.empty()) spec.graphs = c.graphs;
  spec.betas.clear();
  for (const auto& b : c.betas) spec.betas.push_back(sim::BetaSpec::parse(b, c.source + ": betas"));
  spec.policies = {"para_max"};
  Setup s;
  s.experiment = std::make_unique<sim::Experiment>(spec);
  const auto& est = *s.experiment->estimator();
  for (size_t b = 0; b < spec.betas.size(); ++b)
    for (const JobGraphPtr& g : s.experiment->workload(b)->graphs())
      if (!s.graph_index.count(g->fingerprint())) {
        s.graph_index[g->fingerprint()] = static_cast<int>(s.population.size());
        s.population.push_back(g);
        s.graph_set.graphs.push_back(features::extract_job_features(*g, est.profile().edge_sizes));
      }
  s.normalisers = features::compute_normalisers(s.population, est);
  s.topology = {{"shape", est.topology().shape()}, {"servers", est.topology().num_servers()}};
  return s;
}

sim::EnvironmentConfig env_config(const Setup& s, size_t beta) {
  sim::EnvironmentConfig cfg;
  cfg.estimator = s.experiment->estimator();
  cfg.workload = s.experiment->workload(beta);
  cfg.horizon = s.experiment->spec().horizon;
  cfg.record_jobs = false;
  cfg.record_timeline = false;
  return cfg;
}

// The teacher's action for the current decision: the baseline's choice (0
// where it is not feasible), or with a search the best feasible action by
// rollout search over the baseline. With a search, `values` (kNumActions
// entries) receives each feasible action's estimated return, less the
// search's margin for every action but the baseline's (0 elsewhere, and
// everywhere when only one action is feasible). The margin stands for what
// the truncated lookahead cannot see (fragmentation that costs after it
// ends), so a network regressing these values departs from the baseline
// only where a departure pays by more than the margin on average.
int teacher_action(sim::Environment& env, const DecisionContext& ctx, const float* feasible,
                   Policy& teacher, const sim::RolloutSearchConfig& search,
                   std::uint64_t search_seed, float* values) {
  int base = teacher.choose(ctx);
  if (base < 0 || base >= features::kNumActions || feasible[base] == 0.f) base = 0;
  std::fill(values, values + features::kNumActions, 0.f);
  if (search.lookahead <= 0) return base;
  std::vector<int> candidates = {base};
  for (int a = 0; a < features::kNumActions; ++a)
    if (feasible[a] != 0.f && a != base) candidates.push_back(a);
  if (candidates.size() == 1) return base;
  const sim::RolloutSearchResult r =
      sim::rollout_search(env, candidates, teacher, search, search_seed);
  for (size_t i = 0; i < candidates.size(); ++i)
    values[candidates[i]] = static_cast<float>(r.value[i] - (i > 0 ? search.margin : 0.0));
  return r.action;
}

// `teacher` (may be null) labels every decision; the episode follows the
// teacher, or with `follow_student` the sampled policy (DAgger).
EpisodeSteps run_rollout(const Setup& s,
                         const std::shared_ptr<const inference::LearnedModel>& model, size_t beta,
                         std::uint64_t seed, double reward_scale, Policy* teacher,
                         const sim::RolloutSearchConfig& search, bool follow_student) {
  sim::Environment env(env_config(s, beta));
  inference::LearnedPolicy policy(model, "pacml:train", /*sample=*/true);
  EpisodeSteps ep;
  ep.beta = beta;
  const sim::Observation* obs = &env.reset(seed);
  while (!obs->done) {
    const JobGraph& job = *obs->job->graph;
    DecisionContext ctx{job,         obs->job->beta,  *obs->cluster, obs->mask, env.estimator(),
                        env.cache(), env.policy_rng()};
    const inference::Decision d = policy.decide(ctx);
    float values[features::kNumActions] = {};
    const int label =
        teacher
            ? teacher_action(env, ctx, d.inputs.data() + features::kFeasibleOffset, *teacher,
                             search, sim::derive_seed(seed, 5000000 + ep.actions.size()), values)
            : d.action;
    ep.action_values.insert(ep.action_values.end(), values, values + features::kNumActions);
    ep.graph.push_back(s.graph_index.at(job.fingerprint()));
    ep.inputs.insert(ep.inputs.end(), d.inputs.begin(), d.inputs.end());
    ep.actions.push_back(label);
    const int action = teacher && !follow_student ? label : d.action;
    const sim::StepResult r = env.step(action);
    ep.rewards.push_back(static_cast<float>(r.reward * reward_scale));
    obs = &env.observe();
  }
  ep.blocking = env.result().stats.blocking_rate;
  return ep;
}

// Runs fn(i) for i in [0, n) on `threads` threads; rethrows the first error.
// With a pinner, pool thread k runs on core k (the calling thread, worker 0,
// was pinned by train()).
template <typename Fn>
void parallel_for(size_t n, int threads, Fn fn, const hw::ThreadPinner* pinner = nullptr) {
  std::vector<std::exception_ptr> errors(n);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < n;) {
      try {
        fn(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const int t = std::max(1, std::min<int>(threads, static_cast<int>(n)));
  std::vector<std::thread> pool;
  for (int k = 1; k < t; ++k)
    pool.emplace_back([&work, pinner, k] {
      if (pinner) pinner->pin_current_thread(k);
      work();
    });
  work();
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// Mean greedy blocking per β over the eval seeds.
std::vector<double> greedy_eval(const Setup& s,
                                const std::shared_ptr<const inference::LearnedModel>& model,
                                const std::vector<std::uint64_t>& seeds, int threads,
                                const hw::ThreadPinner* pinner) {
  const size_t nb = s.experiment->spec().betas.size();
  std::vector<double> blocking(nb * seeds.size());
  parallel_for(
      blocking.size(), threads,
      [&](size_t i) {
        sim::Environment env(env_config(s, i / seeds.size()));
        inference::LearnedPolicy policy(model, "pacml:eval");
        blocking[i] = sim::run_episode(env, policy, seeds[i % seeds.size()]).stats.blocking_rate;
      },
      pinner);
  std::vector<double> out(nb, 0);
  for (size_t i = 0; i < blocking.size(); ++i)
    out[i / seeds.size()] += blocking[i] / static_cast<double>(seeds.size());
  return out;
}

std::string fmt(double v, int digits = 4) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

void write_plot_script(const std::string& dir, const std::vector<std::string>& betas,
                       const std::vector<double>& best_baseline, const std::string& title) {
  std::ostringstream gp;
  gp << "set terminal pngcairo size 1000,700 noenhanced\nset output 'curve.png'\n"
     << "set datafile separator ','\nset key outside right\nset grid\n"
     << "set xlabel 'environment steps'\nset ylabel 'blocking rate'\n"
     << "set title '" << title << "'\n";
  // Columns: see the curve.csv header written by train().
  const int nb = static_cast<int>(betas.size());
  const char* colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"};
  gp << "plot ";
  for (int b = 0; b < nb; ++b) {
    const std::string c = colours[b % 6];
    gp << (b ? ", \\\n     " : "") << "'curve.csv' every ::1 using 2:" << (9 + b)
       << " with lines lc rgb '" << c << "' lw 1 dt 3 title 'train " << betas[b] << "'"
       << ", '' every ::1 using 2:(column(" << (9 + nb + b) << ") < 0 ? NaN : column("
       << (9 + nb + b) << ")) with linespoints lc rgb '" << c << "' lw 2 pt 7 title 'greedy "
       << betas[b] << "'";
    if (b < static_cast<int>(best_baseline.size()))
      gp << ", " << best_baseline[b] << " with lines lc rgb '" << c
         << "' lw 1 dt 2 title 'best baseline " << betas[b] << "'";
  }
  gp << "\n";
  sim::write_text_file(dir + "/curve.gp", gp.str());
}

void run_gnuplot(const std::string& dir) {
  const std::string cmd = "cd '" + dir + "' && gnuplot curve.gp >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    // The data and script stay; a missing gnuplot only costs the PNG.
  }
}

}  // namespace

TrainSummary train(const TrainConfig& config, const TrainOptions& options) {
  if (options.out_dir.empty()) throw InputError("--out", "an output directory is required");
  sim::make_directories(options.out_dir);
  const std::string dir = options.out_dir;
  const long max_updates = options.max_updates >= 0 ? options.max_updates : config.max_updates;
  const double time_limit = 60.0 * (options.time_limit_minutes >= 0 ? options.time_limit_minutes
                                                                    : config.time_limit_minutes);
  const int workers = options.workers >= 1 ? options.workers : config.workers;
  auto say = [&](const std::string& line) {
    if (options.verbose) std::cerr << line << std::endl;
  };

  // Optional: rollout and evaluation threads pinned to cores (hwloc), the
  // calling thread (which also runs LibTorch's updates) to core 0.
  std::unique_ptr<hw::ThreadPinner> pinner;
  if (options.pin_threads) {
    pinner = std::make_unique<hw::ThreadPinner>();
    const bool pinned = pinner->pin_current_thread(0);
    say(pinned ? "pinning up to " + std::to_string(workers) + " worker threads to " +
                     std::to_string(pinner->cores()) + " cores (hwloc)"
               : "warning: the operating system refused thread pinning; threads stay unbound");
  }

  const Setup setup = make_setup(config);
  const auto& spec = setup.experiment->spec();
  const auto& est = *setup.experiment->estimator();
  const size_t nb = spec.betas.size();
  std::vector<std::string> beta_labels;
  for (size_t b = 0; b < nb; ++b) beta_labels.push_back(setup.experiment->beta_label(b));
  const std::string revision = git_revision(sim::directory_of(config.source));
  sim::write_text_file(dir + "/config.json", config.to_json().dump(2) + "\n");
  say("pacml train: " + config.name + " — " + spec.profile + " profile, " + est.topology().shape() +
      ", " + std::to_string(setup.population.size()) + " graphs, β " +
      [&] {
        std::string s;
        for (auto& l : beta_labels) s += (s.empty() ? "" : "/") + l;
        return s;
      }() +
      ", " + std::to_string(workers) + " workers");

  TorchNetwork net(config.architecture, config.seed, config.ppo.lr);
  auto metadata = [&](long update, long steps, double wall, double best) {
    nlohmann::json training = config.to_json();
    training["updates"] = update;
    training["env_steps"] = steps;
    training["wall_seconds"] = wall;
    training["best_eval_blocking"] = best;
    training["experiment_name"] = spec.name;
    return inference::make_metadata(config.architecture, setup.normalisers, spec.profile,
                                    setup.topology, training, revision);
  };

  long update = 0, env_steps = 0;
  double wall_before = 0, best = -1;
  const std::string ckpt = dir + "/checkpoint.pacw", optim = dir + "/checkpoint.optim.pt";
  if (options.resume && sim::file_exists(ckpt)) {
    const inference::WeightsFile w = inference::read_weights_file(ckpt);
    net.import_weights(w, ckpt);
    if (sim::file_exists(optim)) net.load_optimizer(optim);
    const auto& t = w.metadata.at("training");
    update = t.at("updates").get<long>();
    env_steps = t.at("env_steps").get<long>();
    wall_before = t.at("wall_seconds").get<double>();
    best = t.at("best_eval_blocking").get<double>();
    say("resuming from " + ckpt + " at update " + std::to_string(update));
  } else if (options.resume) {
    say("no checkpoint in " + dir + "; starting fresh");
  }

  // Learning-curve CSV: rows up to the resumed update survive.
  const std::string curve_path = dir + "/curve.csv";
  std::string kept;
  {
    std::ostringstream header;
    header << "update,env_steps,wall_seconds,lr,policy_loss,value_loss,entropy,approx_kl";
    for (auto& l : beta_labels) header << ",train_blocking_" << l;
    for (auto& l : beta_labels) header << ",greedy_blocking_" << l;
    header << ",greedy_mean,clip_fraction\n";
    kept = header.str();
    if (update > 0) {
      std::ifstream old(curve_path);
      std::string line;
      std::getline(old, line);
      while (std::getline(old, line))
        if (!line.empty() && std::stol(line.substr(0, line.find(','))) <= update)
          kept += line + "\n";
    }
  }
  sim::write_text_file(curve_path, kept);
  std::ofstream curve(curve_path, std::ios::app);

  // Baselines on the periodic evaluation seeds (for the plot and the log).
  std::vector<double> best_baseline(nb, 1.0);
  if (config.eval_every > 0 && !config.eval_seeds.empty() && !config.eval_baselines.empty()) {
    std::vector<sim::EpisodeTask> tasks;
    for (const auto& p : config.eval_baselines)
      for (size_t b = 0; b < nb; ++b)
        for (auto seed : config.eval_seeds) {
          sim::EpisodeTask t;
          t.config = env_config(setup, b);
          t.config.policy_label = p;
          t.policy = p;
          t.seed = seed;
          tasks.push_back(t);
        }
    const auto results = sim::run_episodes(tasks, workers);
    std::ostringstream csv;
    csv << "policy,beta,blocking\n";
    size_t i = 0;
    for (const auto& p : config.eval_baselines)
      for (size_t b = 0; b < nb; ++b) {
        double m = 0;
        for (size_t k = 0; k < config.eval_seeds.size(); ++k)
          m += results[i++].stats.blocking_rate / static_cast<double>(config.eval_seeds.size());
        csv << p << "," << beta_labels[b] << "," << sim::csv_number(m) << "\n";
        best_baseline[b] = std::min(best_baseline[b], m);
      }
    sim::write_text_file(dir + "/baselines.csv", csv.str());
    std::string line = "best baseline on eval seeds:";
    for (size_t b = 0; b < nb; ++b) line += " " + beta_labels[b] + " " + fmt(best_baseline[b]);
    say(line);
  }
  write_plot_script(dir, beta_labels, best_baseline, config.name + " (" + spec.profile + ")");

  const auto start = std::chrono::steady_clock::now();
  auto wall = [&] {
    return wall_before +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  sim::ProgressBar bar("train", static_cast<size_t>(std::max<long>(max_updates, 1)),
                       options.progress);
  long session_steps = 0;
  double session_rollout = 0;
  while (update < max_updates && wall() < time_limit) {
    const double lr = config.lr_final >= 0 && max_updates > 0
                          ? config.ppo.lr + (config.lr_final - config.ppo.lr) *
                                                static_cast<double>(update) /
                                                static_cast<double>(max_updates)
                          : config.ppo.lr;
    net.set_learning_rate(lr);
    const auto model = std::make_shared<const inference::LearnedModel>(
        net.export_weights(metadata(update, env_steps, wall(), best)), "training");

    // Rollouts.
    const auto t0 = std::chrono::steady_clock::now();
    const int ne = config.episodes_per_update;
    std::vector<EpisodeSteps> episodes(ne);
    const bool imitating = !config.teacher.empty() && update < config.teacher_updates;
    parallel_for(
        static_cast<size_t>(ne), workers,
        [&](size_t k) {
          const std::uint64_t episode = static_cast<std::uint64_t>(update) * ne + k;
          const std::uint64_t seed =
              sim::derive_seed(config.seed, 1000000 + episode) | (1ULL << 40);
          PolicyPtr teacher = imitating ? make_baseline_policy(config.teacher) : nullptr;
          episodes[k] =
              run_rollout(setup, model, (episode % nb), seed, config.reward_scale, teacher.get(),
                          config.search, config.dagger_from >= 0 && update >= config.dagger_from);
        },
        pinner.get());
    session_rollout += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    // Batch, old log-probs and values, GAE.
    StepBatch batch;
    std::vector<double> train_blocking(nb, 0), train_count(nb, 0);
    for (const auto& ep : episodes) {
      batch.graph.insert(batch.graph.end(), ep.graph.begin(), ep.graph.end());
      batch.inputs.insert(batch.inputs.end(), ep.inputs.begin(), ep.inputs.end());
      batch.actions.insert(batch.actions.end(), ep.actions.begin(), ep.actions.end());
      batch.action_values.insert(batch.action_values.end(), ep.action_values.begin(),
                                 ep.action_values.end());
      train_blocking[ep.beta] += ep.blocking;
      train_count[ep.beta] += 1;
    }
    net.evaluate_actions(setup.graph_set, batch, batch.old_logp, batch.old_values);
    size_t offset = 0;
    for (const auto& ep : episodes) {
      const size_t n = ep.rewards.size();
      std::vector<float> v(batch.old_values.begin() + offset,
                           batch.old_values.begin() + offset + n);
      std::vector<float> adv, ret;
      compute_gae(ep.rewards, v, config.gamma, config.lambda, adv, ret);
      batch.advantages.insert(batch.advantages.end(), adv.begin(), adv.end());
      batch.returns.insert(batch.returns.end(), ret.begin(), ret.end());
      offset += n;
    }
    Rng shuffle(sim::derive_seed(config.seed, 3000000 + static_cast<std::uint64_t>(update)));
    const PpoStats st =
        net.ppo_update(setup.graph_set, batch, config.ppo, shuffle,
                       !imitating              ? TorchNetwork::Objective::kPpo
                       : config.imitate_values ? TorchNetwork::Objective::kSearchValues
                                               : TorchNetwork::Objective::kImitation);
    ++update;
    env_steps += static_cast<long>(batch.size());
    session_steps += static_cast<long>(batch.size());

    // Periodic greedy evaluation.
    std::vector<double> greedy(nb, -1);
    double greedy_mean = -1;
    const bool last = update >= max_updates;
    if (config.eval_every > 0 && !config.eval_seeds.empty() &&
        (update % config.eval_every == 0 || last)) {
      const inference::WeightsFile w =
          net.export_weights(metadata(update, env_steps, wall(), best));
      const auto eval_model = std::make_shared<const inference::LearnedModel>(w, "evaluation");
      greedy = greedy_eval(setup, eval_model, config.eval_seeds, workers, pinner.get());
      greedy_mean = 0;
      for (double g : greedy) greedy_mean += g / static_cast<double>(nb);
      if (best < 0 || greedy_mean < best) {
        best = greedy_mean;
        inference::WeightsFile wb = net.export_weights(metadata(update, env_steps, wall(), best));
        inference::write_weights_file(dir + "/best.pacw", wb);
      }
      std::string line = "update " + std::to_string(update) + " steps " +
                         std::to_string(env_steps) + " " + fmt(wall(), 0) + " s | greedy";
      for (size_t b = 0; b < nb; ++b) line += " " + beta_labels[b] + " " + fmt(greedy[b], 3);
      line += " mean " + fmt(greedy_mean) + " (best " + fmt(best) + ") | entropy " +
              fmt(st.entropy, 3) + " kl " + fmt(st.approx_kl, 4);
      if (options.progress != 1) say(line);
    }

    curve << update << "," << env_steps << "," << sim::csv_number(wall()) << ","
          << sim::csv_number(lr) << "," << sim::csv_number(st.policy_loss) << ","
          << sim::csv_number(st.value_loss) << "," << sim::csv_number(st.entropy) << ","
          << sim::csv_number(st.approx_kl);
    for (size_t b = 0; b < nb; ++b)
      curve << ","
            << (train_count[b] > 0 ? sim::csv_number(train_blocking[b] / train_count[b]) : "");
    for (size_t b = 0; b < nb; ++b) curve << "," << sim::csv_number(greedy[b]);
    curve << "," << sim::csv_number(greedy_mean) << "," << sim::csv_number(st.clip_fraction)
          << "\n";
    curve.flush();

    if (update % config.checkpoint_every == 0 || last || wall() >= time_limit) {
      inference::write_weights_file(ckpt,
                                    net.export_weights(metadata(update, env_steps, wall(), best)));
      net.save_optimizer(optim);
    }
    bar.update(static_cast<size_t>(update));
  }
  bar.finish();
  inference::write_weights_file(ckpt,
                                net.export_weights(metadata(update, env_steps, wall(), best)));
  net.save_optimizer(optim);
  inference::write_weights_file(dir + "/final.pacw",
                                net.export_weights(metadata(update, env_steps, wall(), best)));
  run_gnuplot(dir);

  TrainSummary sum;
  sum.updates = update;
  sum.env_steps = env_steps;
  sum.wall_seconds = wall();
  const double session_wall = wall() - wall_before;
  sum.steps_per_second = session_wall > 0 ? static_cast<double>(session_steps) / session_wall : 0;
  sum.best_eval_blocking = best;
  sum.final_weights = dir + "/final.pacw";
  sum.best_weights = sim::file_exists(dir + "/best.pacw") ? dir + "/best.pacw" : "";
  say("done: " + std::to_string(update) + " updates, " + std::to_string(env_steps) +
      " env steps, " + fmt(sum.wall_seconds, 1) + " s (" + fmt(sum.steps_per_second, 0) +
      " steps/s overall, rollouts " +
      fmt(session_rollout > 0 ? static_cast<double>(session_steps) / session_rollout : 0, 0) +
      " steps/s); weights " + sum.final_weights +
      (sum.best_weights.empty() ? "" : ", best " + sum.best_weights));
  return sum;
}

}  // namespace pacml::model
