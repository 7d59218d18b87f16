// The PPO training loop of the PAC-ML policy (model/trainer.h): set up,
// resume from a checkpoint, one update after another (GAE, the PPO update,
// periodic greedy evaluation, the learning curve, checkpoints), final
// weights. The episodes are model/trainer_rollout.cpp's, the config's
// parsing model/trainer_config.cpp's.
#include "model/trainer.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/hw/thread_pinning.h"
#include "core/inference/learned_model.h"
#include "core/util/error.h"
#include "model/trainer_rollout.h"
#include "sim/experiment/evaluation.h"
#include "sim/report/csv.h"
#include "sim/report/progress.h"
#include "sim/workload/paths.h"

namespace pacml::model {

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

using ppo::concatenate;
using ppo::env_config;
using ppo::EpisodeSteps;
using ppo::greedy_eval;
using ppo::make_setup;
using ppo::run_rollouts;
using ppo::Setup;

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
  // Columns: see the curve.csv header written by PpoTraining::start_curve().
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

// One call of train(): what stays fixed for the run (limits, experiment,
// output paths, network) and the progress a checkpoint saves (update, steps,
// wall time, best evaluation). Its steps, in the order train() calls them,
// are the loop of doc/LEARNING.md §5.
class PpoTraining {
 public:
  // Checks and creates the output directory, pins threads if asked, builds
  // the experiment and a fresh network, and writes config.json.
  PpoTraining(const TrainConfig& config, const TrainOptions& options);

  // With --resume: the network, the optimiser and the progress from
  // checkpoint.pacw (a fresh start, said so, when there is none).
  void resume_from_checkpoint();
  // curve.csv's header, keeping the rows up to the resumed update.
  void start_curve();
  // The best baseline's blocking per β on the evaluation seeds (1 where
  // there are none), and baselines.csv.
  std::vector<double> evaluate_baselines() const;
  void write_curve_plot_script(const std::vector<double>& best_baseline) const;
  // The wall clock counts from here (plus what a resumed run had spent), so
  // that the baselines do not eat into the time limit.
  void start_clock();

  long max_updates() const { return max_updates_; }
  long updates() const { return update_; }
  bool has_updates_and_time_left() const { return update_ < max_updates_ && wall() < time_limit_; }
  // Rollouts, GAE, one PPO (or imitation) update, the periodic greedy
  // evaluation, a curve row and, when due, a checkpoint.
  void one_update();
  // The last checkpoint, final.pacw, curve.png and the closing status line.
  TrainSummary finish();

 private:
  struct GreedyEvaluation {
    std::vector<double> blocking;  // per β; -1 when not evaluated
    double mean = -1;
  };

  void say(const std::string& line) const;
  double wall() const;
  double learning_rate() const;
  // The current network with the run's metadata, as the weights files store it.
  inference::WeightsFile weights() const;
  std::vector<EpisodeSteps> collect_episodes(bool imitating);
  // Old log-probabilities and values from the network, advantages and
  // returns from GAE, episode by episode.
  void add_advantages(const std::vector<EpisodeSteps>& episodes, StepBatch& batch) const;
  PpoStats improve_policy(const StepBatch& batch, bool imitating);
  GreedyEvaluation evaluate_greedy_if_due(bool last, const PpoStats& stats);
  void write_curve_row(double lr, const PpoStats& stats, const std::vector<EpisodeSteps>& episodes,
                       const GreedyEvaluation& greedy);
  void save_checkpoint();

  const TrainConfig& config_;
  const TrainOptions& options_;
  const std::string dir_;
  const long max_updates_;
  const double time_limit_;  // seconds
  const int workers_;
  // Optional: rollout and evaluation threads pinned to cores (hwloc), the
  // calling thread (which also runs LibTorch's updates) to core 0.
  const std::unique_ptr<hw::ThreadPinner> pinner_;
  const Setup setup_;
  const std::vector<std::string> beta_labels_;
  const std::string revision_;
  const std::string checkpoint_path_, optimizer_path_;
  TorchNetwork net_;
  long update_ = 0, env_steps_ = 0;
  double wall_before_ = 0, best_ = -1;
  std::ofstream curve_;
  std::chrono::steady_clock::time_point start_;
  // This session's share, for the closing line's speeds.
  long session_steps_ = 0;
  double session_rollout_seconds_ = 0;
};

// The output directory, created; InputError when none was given.
std::string output_directory(const TrainOptions& options) {
  if (options.out_dir.empty()) throw InputError("--out", "an output directory is required");
  sim::make_directories(options.out_dir);
  return options.out_dir;
}

// A status line on stderr, unless --quiet.
void say(const TrainOptions& options, const std::string& line) {
  if (options.verbose) std::cerr << line << std::endl;
}

std::unique_ptr<hw::ThreadPinner> pin_threads(const TrainOptions& options, int workers) {
  if (!options.pin_threads) return nullptr;
  auto pinner = std::make_unique<hw::ThreadPinner>();
  const bool pinned = pinner->pin_current_thread(0);
  say(options, pinned
                   ? "pinning up to " + std::to_string(workers) + " worker threads to " +
                         std::to_string(pinner->cores()) + " cores (hwloc)"
                   : "warning: the operating system refused thread pinning; threads stay unbound");
  return pinner;
}

std::vector<std::string> beta_labels(const Setup& setup) {
  std::vector<std::string> labels;
  for (size_t b = 0; b < setup.experiment->spec().betas.size(); ++b)
    labels.push_back(setup.experiment->beta_label(b));
  return labels;
}

PpoTraining::PpoTraining(const TrainConfig& config, const TrainOptions& options)
    : config_(config),
      options_(options),
      dir_(output_directory(options)),
      max_updates_(options.max_updates >= 0 ? options.max_updates : config.max_updates),
      time_limit_(60.0 * (options.time_limit_minutes >= 0 ? options.time_limit_minutes
                                                          : config.time_limit_minutes)),
      workers_(options.workers >= 1 ? options.workers : config.workers),
      pinner_(pin_threads(options, workers_)),
      setup_(make_setup(config)),
      beta_labels_(beta_labels(setup_)),
      revision_(git_revision(sim::directory_of(config.source))),
      checkpoint_path_(dir_ + "/checkpoint.pacw"),
      optimizer_path_(dir_ + "/checkpoint.optim.pt"),
      net_(config.architecture, config.seed, config.ppo.lr) {
  sim::write_text_file(dir_ + "/config.json", config.to_json().dump(2) + "\n");
  std::string betas;
  for (const auto& l : beta_labels_) betas += (betas.empty() ? "" : "/") + l;
  say("pacml train: " + config.name + " — " + setup_.experiment->spec().profile + " profile, " +
      setup_.experiment->estimator()->topology().shape() + ", " +
      std::to_string(setup_.population.size()) + " graphs, β " + betas + ", " +
      std::to_string(workers_) + " workers");
}

void PpoTraining::say(const std::string& line) const {
  model::say(options_, line);
}

double PpoTraining::wall() const {
  return wall_before_ +
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

// Constant, or with lr_final decaying linearly over max_updates.
double PpoTraining::learning_rate() const {
  if (config_.lr_final < 0 || max_updates_ <= 0) return config_.ppo.lr;
  return config_.ppo.lr + (config_.lr_final - config_.ppo.lr) * static_cast<double>(update_) /
                              static_cast<double>(max_updates_);
}

inference::WeightsFile PpoTraining::weights() const {
  nlohmann::json training = config_.to_json();
  training["updates"] = update_;
  training["env_steps"] = env_steps_;
  training["wall_seconds"] = wall();
  training["best_eval_blocking"] = best_;
  training["experiment_name"] = setup_.experiment->spec().name;
  return net_.export_weights(inference::make_metadata(config_.architecture, setup_.normalisers,
                                                      setup_.experiment->spec().profile,
                                                      setup_.topology, training, revision_));
}

void PpoTraining::resume_from_checkpoint() {
  if (!options_.resume) return;
  if (!sim::file_exists(checkpoint_path_)) {
    say("no checkpoint in " + dir_ + "; starting fresh");
    return;
  }
  const inference::WeightsFile w = inference::read_weights_file(checkpoint_path_);
  net_.import_weights(w, checkpoint_path_);
  if (sim::file_exists(optimizer_path_)) net_.load_optimizer(optimizer_path_);
  const auto& t = w.metadata.at("training");
  update_ = t.at("updates").get<long>();
  env_steps_ = t.at("env_steps").get<long>();
  wall_before_ = t.at("wall_seconds").get<double>();
  best_ = t.at("best_eval_blocking").get<double>();
  say("resuming from " + checkpoint_path_ + " at update " + std::to_string(update_));
}

void PpoTraining::start_curve() {
  const std::string path = dir_ + "/curve.csv";
  std::ostringstream header;
  header << "update,env_steps,wall_seconds,lr,policy_loss,value_loss,entropy,approx_kl";
  for (auto& l : beta_labels_) header << ",train_blocking_" << l;
  for (auto& l : beta_labels_) header << ",greedy_blocking_" << l;
  header << ",greedy_mean,clip_fraction\n";
  std::string kept = header.str();
  if (update_ > 0) {
    std::ifstream old(path);
    std::string line;
    std::getline(old, line);
    while (std::getline(old, line))
      if (!line.empty() && std::stol(line.substr(0, line.find(','))) <= update_)
        kept += line + "\n";
  }
  sim::write_text_file(path, kept);
  curve_.open(path, std::ios::app);
}

std::vector<double> PpoTraining::evaluate_baselines() const {
  const size_t nb = beta_labels_.size();
  std::vector<double> best_baseline(nb, 1.0);
  if (config_.eval_every <= 0 || config_.eval_seeds.empty() || config_.eval_baselines.empty())
    return best_baseline;
  std::vector<sim::EpisodeTask> tasks;
  for (const auto& p : config_.eval_baselines)
    for (size_t b = 0; b < nb; ++b)
      for (auto seed : config_.eval_seeds) {
        sim::EpisodeTask t;
        t.config = env_config(setup_, b);
        t.config.policy_label = p;
        t.policy = p;
        t.seed = seed;
        tasks.push_back(t);
      }
  const auto results = sim::run_episodes(tasks, workers_);
  std::ostringstream csv;
  csv << "policy,beta,blocking\n";
  size_t i = 0;
  for (const auto& p : config_.eval_baselines)
    for (size_t b = 0; b < nb; ++b) {
      double m = 0;
      for (size_t k = 0; k < config_.eval_seeds.size(); ++k)
        m += results[i++].stats.blocking_rate / static_cast<double>(config_.eval_seeds.size());
      csv << p << "," << beta_labels_[b] << "," << sim::csv_number(m) << "\n";
      best_baseline[b] = std::min(best_baseline[b], m);
    }
  sim::write_text_file(dir_ + "/baselines.csv", csv.str());
  std::string line = "best baseline on eval seeds:";
  for (size_t b = 0; b < nb; ++b) line += " " + beta_labels_[b] + " " + fmt(best_baseline[b]);
  say(line);
  return best_baseline;
}

void PpoTraining::write_curve_plot_script(const std::vector<double>& best_baseline) const {
  write_plot_script(dir_, beta_labels_, best_baseline,
                    config_.name + " (" + setup_.experiment->spec().profile + ")");
}

void PpoTraining::start_clock() {
  start_ = std::chrono::steady_clock::now();
}

void PpoTraining::one_update() {
  const double lr = learning_rate();
  net_.set_learning_rate(lr);
  const bool imitating = !config_.teacher.empty() && update_ < config_.teacher_updates;
  const std::vector<EpisodeSteps> episodes = collect_episodes(imitating);
  StepBatch batch = concatenate(episodes);
  add_advantages(episodes, batch);
  const PpoStats stats = improve_policy(batch, imitating);
  ++update_;
  env_steps_ += static_cast<long>(batch.size());
  session_steps_ += static_cast<long>(batch.size());
  const bool last = update_ >= max_updates_;
  const GreedyEvaluation greedy = evaluate_greedy_if_due(last, stats);
  write_curve_row(lr, stats, episodes, greedy);
  if (update_ % config_.checkpoint_every == 0 || last || wall() >= time_limit_) save_checkpoint();
}

// The update's episodes from the current network (model/trainer_rollout.h),
// timed for the closing line's rollout speed.
std::vector<EpisodeSteps> PpoTraining::collect_episodes(bool imitating) {
  const auto model = std::make_shared<const inference::LearnedModel>(weights(), "training");
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<EpisodeSteps> episodes =
      run_rollouts(setup_, config_, model, update_, imitating, workers_, pinner_.get());
  session_rollout_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return episodes;
}

void PpoTraining::add_advantages(const std::vector<EpisodeSteps>& episodes,
                                 StepBatch& batch) const {
  net_.evaluate_actions(setup_.graph_set, batch, batch.old_logp, batch.old_values);
  size_t offset = 0;
  for (const auto& ep : episodes) {
    const size_t n = ep.rewards.size();
    std::vector<float> v(batch.old_values.begin() + offset, batch.old_values.begin() + offset + n);
    std::vector<float> adv, ret;
    compute_gae(ep.rewards, v, config_.gamma, config_.lambda, adv, ret);
    batch.advantages.insert(batch.advantages.end(), adv.begin(), adv.end());
    batch.returns.insert(batch.returns.end(), ret.begin(), ret.end());
    offset += n;
  }
}

// PPO on the advantages; while imitating, the teacher's actions (or with
// objective "values" its searched action values) instead.
PpoStats PpoTraining::improve_policy(const StepBatch& batch, bool imitating) {
  Rng shuffle(sim::derive_seed(config_.seed, 3000000 + static_cast<std::uint64_t>(update_)));
  return net_.ppo_update(setup_.graph_set, batch, config_.ppo, shuffle,
                         !imitating               ? TorchNetwork::Objective::kPpo
                         : config_.imitate_values ? TorchNetwork::Objective::kSearchValues
                                                  : TorchNetwork::Objective::kImitation);
}

// Every eval_every updates and after the last one: the greedy network on
// the evaluation seeds; a new best is saved as best.pacw.
PpoTraining::GreedyEvaluation PpoTraining::evaluate_greedy_if_due(bool last,
                                                                  const PpoStats& stats) {
  const size_t nb = beta_labels_.size();
  GreedyEvaluation greedy{std::vector<double>(nb, -1), -1};
  if (config_.eval_every <= 0 || config_.eval_seeds.empty() ||
      (update_ % config_.eval_every != 0 && !last))
    return greedy;
  const auto model = std::make_shared<const inference::LearnedModel>(weights(), "evaluation");
  greedy.blocking = greedy_eval(setup_, model, config_.eval_seeds, workers_, pinner_.get());
  greedy.mean = 0;
  for (double g : greedy.blocking) greedy.mean += g / static_cast<double>(nb);
  if (best_ < 0 || greedy.mean < best_) {
    best_ = greedy.mean;
    inference::write_weights_file(dir_ + "/best.pacw", weights());
  }
  std::string line = "update " + std::to_string(update_) + " steps " + std::to_string(env_steps_) +
                     " " + fmt(wall(), 0) + " s | greedy";
  for (size_t b = 0; b < nb; ++b) line += " " + beta_labels_[b] + " " + fmt(greedy.blocking[b], 3);
  line += " mean " + fmt(greedy.mean) + " (best " + fmt(best_) + ") | entropy " +
          fmt(stats.entropy, 3) + " kl " + fmt(stats.approx_kl, 4);
  if (options_.progress != 1) say(line);
  return greedy;
}

// Columns as start_curve()'s header; the training blocking is the mean over
// the update's episodes of each β (empty for a β without one).
void PpoTraining::write_curve_row(double lr, const PpoStats& stats,
                                  const std::vector<EpisodeSteps>& episodes,
                                  const GreedyEvaluation& greedy) {
  const size_t nb = beta_labels_.size();
  std::vector<double> train_blocking(nb, 0), train_count(nb, 0);
  for (const auto& ep : episodes) {
    train_blocking[ep.beta] += ep.blocking;
    train_count[ep.beta] += 1;
  }
  curve_ << update_ << "," << env_steps_ << "," << sim::csv_number(wall()) << ","
         << sim::csv_number(lr) << "," << sim::csv_number(stats.policy_loss) << ","
         << sim::csv_number(stats.value_loss) << "," << sim::csv_number(stats.entropy) << ","
         << sim::csv_number(stats.approx_kl);
  for (size_t b = 0; b < nb; ++b)
    curve_ << ","
           << (train_count[b] > 0 ? sim::csv_number(train_blocking[b] / train_count[b]) : "");
  for (size_t b = 0; b < nb; ++b) curve_ << "," << sim::csv_number(greedy.blocking[b]);
  curve_ << "," << sim::csv_number(greedy.mean) << "," << sim::csv_number(stats.clip_fraction)
         << "\n";
  curve_.flush();
}

void PpoTraining::save_checkpoint() {
  inference::write_weights_file(checkpoint_path_, weights());
  net_.save_optimizer(optimizer_path_);
}

TrainSummary PpoTraining::finish() {
  save_checkpoint();
  inference::write_weights_file(dir_ + "/final.pacw", weights());
  run_gnuplot(dir_);
  TrainSummary sum;
  sum.updates = update_;
  sum.env_steps = env_steps_;
  sum.wall_seconds = wall();
  const double session_wall = wall() - wall_before_;
  sum.steps_per_second = session_wall > 0 ? static_cast<double>(session_steps_) / session_wall : 0;
  sum.best_eval_blocking = best_;
  sum.final_weights = dir_ + "/final.pacw";
  sum.best_weights = sim::file_exists(dir_ + "/best.pacw") ? dir_ + "/best.pacw" : "";
  const double rollout_speed = session_rollout_seconds_ > 0
                                   ? static_cast<double>(session_steps_) / session_rollout_seconds_
                                   : 0;
  say("done: " + std::to_string(update_) + " updates, " + std::to_string(env_steps_) +
      " env steps, " + fmt(sum.wall_seconds, 1) + " s (" + fmt(sum.steps_per_second, 0) +
      " steps/s overall, rollouts " + fmt(rollout_speed, 0) + " steps/s); weights " +
      sum.final_weights + (sum.best_weights.empty() ? "" : ", best " + sum.best_weights));
  return sum;
}

}  // namespace

TrainSummary train(const TrainConfig& config, const TrainOptions& options) {
  PpoTraining run(config, options);
  run.resume_from_checkpoint();
  run.start_curve();
  run.write_curve_plot_script(run.evaluate_baselines());
  run.start_clock();
  sim::ProgressBar bar("train", static_cast<size_t>(std::max<long>(run.max_updates(), 1)),
                       options.progress);
  while (run.has_updates_and_time_left()) {
    run.one_update();
    bar.update(static_cast<size_t>(run.updates()));
  }
  bar.finish();
  return run.finish();
}

}  // namespace pacml::model
