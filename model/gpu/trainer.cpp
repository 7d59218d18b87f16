// The GPU policy's DAgger loop (model/gpu/trainer.h): set up, then one
// iteration after another (rollouts labelled by the teacher, the aggregated
// dataset, training, validation, a curve row), final weights. The episodes
// and the teacher's cap are model/gpu/trainer_episodes.cpp's, the config's
// parsing model/gpu/trainer_config.cpp's.
#include "model/gpu/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "core/gpu/features.h"
#include "core/gpu/learned_policy.h"
#include "core/util/error.h"
#include "model/gpu/trainer_episodes.h"
#include "model/trainer.h"
#include "sim/experiment/evaluation.h"
#include "sim/gpu/hindsight_search.h"
#include "sim/report/csv.h"
#include "sim/report/progress.h"
#include "sim/workload/paths.h"

namespace pacml::gpu {
namespace {

// The candidate index of `gpus` (0, "do not start now", for 0 GPUs).
int candidate_index(const DecisionFeatures& f, int gpus) {
  for (size_t a = 1; a < f.gpus.size(); ++a)
    if (f.gpus[a] == gpus) return static_cast<int>(a);
  return 0;
}

// `keep` of the batch's decisions, drawn without replacement with `rng`, in
// their original order.
DecisionBatch subsample(const DecisionBatch& all, size_t keep, Rng& rng) {
  std::vector<size_t> idx(all.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  for (size_t i = 0; i < keep; ++i)
    std::swap(idx[i], idx[i + rng.below(static_cast<std::uint64_t>(idx.size() - i))]);
  idx.resize(keep);
  std::sort(idx.begin(), idx.end());
  DecisionBatch out;
  for (size_t i : idx) out.add_from(all, i);
  return out;
}

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
  DecisionBatch decisions;  // at most episode_decisions of them
  double met = 0;
  Agreement agreement;
};

// The rollout's chooser: follows the teacher (no policy) or the network, and
// records the decisions with a choice, labelled by the teacher.
class Recorder {
 public:
  // `searched`: the rollout search's action at each decision, in order
  // (teacher: rollout); null: the capped teacher labels.
  Recorder(const Setup& s, const TrainConfig& c, const Episode& e, LearnedPolicy* policy,
           const std::vector<int>* searched, Rollout& out)
      : s_(s), c_(c), e_(e), policy_(policy), searched_(searched), out_(out) {}
  int operator()(const DecisionInput& in, Rng& rng);

 private:
  int teacher_action(const DecisionInput& in);
  const Setup& s_;
  const TrainConfig& c_;
  const Episode& e_;
  LearnedPolicy* policy_;
  const std::vector<int>* searched_;
  size_t decisions_ = 0;
  Rollout& out_;
  // Per job (model, deadline): what the teacher and the policy said at its
  // last recorded decision, as label × 8 + chosen.
  std::map<std::pair<const ParallelJob*, double>, int> last_;
};

int Recorder::teacher_action(const DecisionInput& in) {
  const size_t d = decisions_++;
  if (!searched_) return capped_min_feasible(in, e_.cap);
  if (d >= searched_->size())
    throw std::logic_error("gpu trainer: the rollout search labelled fewer decisions than made");
  return (*searched_)[d];
}

int Recorder::operator()(const DecisionInput& in, Rng& rng) {
  DecisionFeatures f;
  int chosen = -1;
  if (policy_) {
    gpu::LearnedDecision d = policy_->decide(in, rng);
    chosen = d.action;
    f = std::move(d.features);
  } else {
    f = decision_features(in);
  }
  const int label = candidate_index(f, teacher_action(in));
  if (chosen < 0) chosen = label;
  // A decision with one candidate (nothing can start now) teaches nothing.
  if (f.gpus.size() < 2) return gpus_for_action(f, chosen);
  // A queue retries a waiting job at every completion, so a job held for
  // hours counts dozens of times. Without record_retries a retry is recorded
  // only when the teacher or the policy changes its mind.
  const auto [it, first] = last_.try_emplace({in.job, in.deadline}, label * 8 + chosen);
  if (!c_.record_retries && !first && it->second == label * 8 + chosen)
    return gpus_for_action(f, chosen);
  it->second = label * 8 + chosen;
  out_.agreement.add(e_.scenario.admission == Admission::kQueue, label > 0, chosen == label);
  out_.decisions.add(s_.graphs.of(in.job), f, label);
  return gpus_for_action(f, chosen);
}

// teacher: rollout: the rollout search's action at every decision of the
// replay rollout() makes (following the greedy network, or the search
// itself when there is no model yet), with the capped teacher as its base.
std::vector<int> searched_labels(const Setup& s, const TrainConfig& c, const Episode& e,
                                 const std::shared_ptr<const LearnedModel>& model,
                                 std::uint64_t rng_seed, int worker) {
  HindsightSearchOptions options;
  options.base = capped_teacher(e.cap);
  options.lookahead = c.teacher_lookahead;
  options.seed = rng_seed;
  options.progress = 0;
  options.admission = e.scenario.admission;
  options.order = s.order;
  DurationModel& d = s.durations_of(worker, e.scenario.cluster_index);
  if (!model) return hindsight_labels(e.jobs, d, options, nullptr);
  LearnedPolicy network(model, false);
  const Policy follow = Policy::of_chooser("pacml:train", [&](const DecisionInput& in, Rng& rng) {
    return network.decide(in, rng).gpus();
  });
  return hindsight_labels(e.jobs, d, options, &follow);
}

// Follows the teacher (model null) or the network, greedy or sampled with
// the replay's RNG seeded by `rng_seed`; the teacher labels every decision.
Rollout rollout(const Setup& s, const TrainConfig& c, const Episode& e,
                const std::shared_ptr<const LearnedModel>& model, std::uint64_t rng_seed,
                int worker) {
  Rollout out;
  std::unique_ptr<LearnedPolicy> policy;
  if (model) policy = std::make_unique<LearnedPolicy>(model, c.dagger_sample);
  std::vector<int> searched;
  if (c.teacher == "rollout") searched = searched_labels(s, c, e, model, rng_seed, worker);
  Recorder recorder(s, c, e, policy.get(), c.teacher == "rollout" ? &searched : nullptr, out);
  const Policy follow = Policy::of_chooser(
      "rollout", [&recorder](const DecisionInput& in, Rng& rng) { return recorder(in, rng); });
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
                  const std::shared_ptr<const LearnedModel>& model, int worker) {
  LearnedPolicy policy(model, false);
  const Policy p = Policy::of_chooser("pacml:train", [&](const DecisionInput& in, Rng& rng) {
    return policy.decide(in, rng).gpus();
  });
  return replay_met(s, e, p, worker, e.seed);
}

// Mean of f(episode) over the episodes, and per admission mode.
struct MetShares {
  double all = 0, immediate = -1, queue = -1;
};

template <typename F>
MetShares mean_met(const std::vector<Episode>& episodes, F f) {
  MetShares m;
  double sum[2] = {0, 0}, n[2] = {0, 0};
  for (size_t i = 0; i < episodes.size(); ++i) {
    const int q = episodes[i].scenario.admission == Admission::kQueue;
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
  DecisionBatch decisions;
  Agreement agreement;
  double met = 0;
};

IterationData run_rollouts(const Setup& s, const TrainConfig& c, long iteration,
                           const std::shared_ptr<const LearnedModel>& model) {
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
void aggregate(DecisionBatch& dataset, const DecisionBatch& fresh, long iteration, size_t cap,
               Rng& rng) {
  size_t keep_new = fresh.size(), keep_old = dataset.size();
  if (keep_old + keep_new > cap) {
    keep_new =
        std::min(fresh.size(), std::max(cap / static_cast<size_t>(iteration + 1), cap - keep_old));
    keep_old = std::min(dataset.size(), cap - keep_new);
  }
  DecisionBatch out =
      keep_old < dataset.size() ? subsample(dataset, keep_old, rng) : std::move(dataset);
  const DecisionBatch added = keep_new < fresh.size() ? subsample(fresh, keep_new, rng) : fresh;
  for (size_t k = 0; k < added.size(); ++k) out.add_from(added, k);
  dataset = std::move(out);
}

std::vector<double> validate(const Setup& s, const std::shared_ptr<const LearnedModel>& model) {
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
// One call of train(): the episodes, the teacher's and min_feasible's
// validation results, the network, the aggregated dataset and the curve.
// Its steps, in the order train() calls them, are doc/LEARNING.md §7's
// DAgger loop.
class Training {
 public:
  // Checks and creates the output directory, writes config.json, draws the
  // episodes' jobs and searches the teacher's cap per episode (the slow
  // part, said first), and opens curve.csv.
  Training(const TrainConfig& config, const TrainOptions& options);

  long max_iterations() const { return max_iterations_; }
  long iterations() const { return iteration_; }
  bool has_iterations_and_time_left() const {
    return iteration_ < max_iterations_ && wall() < time_limit_;
  }
  // Rollouts (the teacher's at iteration 0, then the network's), the
  // aggregated dataset, training, validation, a curve row and a status line.
  void one_iteration();
  // final.pacw, curve.png and the closing status line.
  TrainSummary finish();

 private:
  void say(const std::string& line) const;
  double wall() const;
  // The current network with the run's metadata, as the weights files store it.
  inference::WeightsFile weights() const;
  // Aggregates the iteration's decisions into the dataset and trains on it.
  TrainStats train_on(const DecisionBatch& decisions);
  // Seconds since the start at the iteration's three stages' ends.
  struct Timing {
    double start, rollouts, training;
  };
  // results (the weights files' metadata), best.pacw, the curve row and the
  // status line.
  void record(const IterationData& data, const TrainStats& stats, const MetShares& learned,
              const Timing& timing);

  const TrainConfig& config_;
  const TrainOptions& options_;
  const std::chrono::steady_clock::time_point start_;
  const std::string dir_;
  const long max_iterations_;
  const double time_limit_;  // seconds
  const int workers_;
  const std::string revision_;
  std::unique_ptr<Setup> setup_;
  MetShares validation_min_feasible_, validation_teacher_;
  TorchNetwork net_;
  nlohmann::json results_ = {{"iterations", 0}, {"decisions", 0}};
  std::ofstream curve_;
  DecisionBatch dataset_;
  double best_validation_ = -1;
  long iteration_ = 0;
};

// The output directory, created; InputError when none was given.
std::string output_directory(const TrainOptions& options) {
  if (options.out_dir.empty()) throw InputError("--out", "an output directory is required");
  sim::make_directories(options.out_dir);
  return options.out_dir;
}

Training::Training(const TrainConfig& config, const TrainOptions& options)
    : config_(config),
      options_(options),
      start_(std::chrono::steady_clock::now()),
      dir_(output_directory(options)),
      max_iterations_(options.iterations >= 0 ? options.iterations : config.iterations),
      time_limit_(60.0 * (options.time_limit_minutes >= 0 ? options.time_limit_minutes
                                                          : config.time_limit_minutes)),
      workers_(options.workers >= 1 ? options.workers : config.workers),
      revision_(model::git_revision(sim::directory_of(config.source))),
      net_(config.architecture, config.seed, config.optimiser.lr) {
  sim::write_text_file(dir_ + "/config.json", config.to_json().dump(2) + "\n");
  say("pacml train: " + config.name + " — GPU policy, " + std::to_string(workers_) +
      " workers; drawing jobs and searching the teacher's cap per episode");
  setup_ = make_setup(config, workers_);
  const Setup& s = *setup_;
  validation_min_feasible_ =
      mean_met(s.validation, [&](size_t i) { return s.validation[i].min_feasible_met; });
  validation_teacher_ =
      mean_met(s.validation, [&](size_t i) { return s.validation[i].teacher_met; });
  const MetShares train_teacher =
      mean_met(s.train, [&](size_t i) { return s.train[i].teacher_met; });
  say(std::to_string(s.train.size()) + " training and " + std::to_string(s.validation.size()) +
      " validation episodes, " + std::to_string(s.graphs.graphs.size()) + " job graphs; " +
      fmt(wall(), 1) + " s\n  training teacher " + met_text(train_teacher) +
      "\n  validation: min_feasible " + met_text(validation_min_feasible_) + ", teacher " +
      met_text(validation_teacher_));
  curve_.open(dir_ + "/curve.csv");
  curve_ << "iteration,decisions,dataset,loss,value_loss,accuracy,rollout_agreement,rollout_met,"
            "val_learned,val_min_feasible,val_teacher,wall_seconds\n";
}

void Training::say(const std::string& line) const {
  if (options_.verbose) std::cerr << line << std::endl;
}

double Training::wall() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

inference::WeightsFile Training::weights() const {
  nlohmann::json training = config_.to_json();
  training["results"] = results_;
  training["results"]["wall_seconds"] = wall();
  return net_.export_weights(make_metadata(config_.architecture, training, revision_));
}

void Training::one_iteration() {
  std::shared_ptr<const LearnedModel> model;
  if (iteration_ > 0) model = std::make_shared<const LearnedModel>(weights(), "training");
  Timing timing{wall(), 0, 0};
  const IterationData data = run_rollouts(*setup_, config_, iteration_, model);
  timing.rollouts = wall();
  const TrainStats stats = train_on(data.decisions);
  timing.training = wall();
  const auto validation_model = std::make_shared<const LearnedModel>(weights(), "validation");
  const std::vector<double> met = validate(*setup_, validation_model);
  const MetShares learned = mean_met(setup_->validation, [&](size_t i) { return met[i]; });
  record(data, stats, learned, timing);
  ++iteration_;
}

TrainStats Training::train_on(const DecisionBatch& decisions) {
  Rng keep(sim::derive_seed(config_.seed, 4000000 + static_cast<std::uint64_t>(iteration_)));
  aggregate(dataset_, decisions, iteration_, static_cast<size_t>(config_.dataset_max), keep);
  Rng shuffle(sim::derive_seed(config_.seed, 3000000 + static_cast<std::uint64_t>(iteration_)));
  return net_.train(setup_->graphs.graphs, dataset_, config_.optimiser, shuffle);
}

void Training::record(const IterationData& data, const TrainStats& stats, const MetShares& learned,
                      const Timing& timing) {
  const double agreement = data.agreement.rate();
  results_ = {{"iterations", iteration_ + 1},
              {"decisions", dataset_.size()},
              {"loss", stats.loss},
              {"accuracy", stats.accuracy},
              {"validation_learned", learned.all},
              {"validation_min_feasible", validation_min_feasible_.all},
              {"validation_teacher", validation_teacher_.all},
              {"best_validation", std::max(best_validation_, learned.all)}};
  if (learned.all > best_validation_) {
    best_validation_ = learned.all;
    inference::write_weights_file(dir_ + "/best.pacw", weights());
  }
  curve_ << iteration_ << "," << data.decisions.size() << "," << dataset_.size() << ","
         << sim::csv_number(stats.loss) << "," << sim::csv_number(stats.value_loss) << ","
         << sim::csv_number(stats.accuracy) << "," << sim::csv_number(agreement) << ","
         << sim::csv_number(data.met) << "," << sim::csv_number(learned.all) << ","
         << sim::csv_number(validation_min_feasible_.all) << ","
         << sim::csv_number(validation_teacher_.all) << "," << sim::csv_number(wall()) << "\n";
  curve_.flush();
  if (options_.progress != 1)
    say("iteration " + std::to_string(iteration_) + ": " + std::to_string(data.decisions.size()) +
        " decisions (dataset " + std::to_string(dataset_.size()) + "), rollouts met " +
        fmt(data.met, 3) + ", followed the teacher on " + data.agreement.text() + " | loss " +
        fmt(stats.loss) + " accuracy " + fmt(stats.accuracy, 3) + " | validation learned " +
        met_text(learned) + " | " + fmt(wall(), 0) + " s (rollouts " +
        fmt(timing.rollouts - timing.start, 0) + " s, training " +
        fmt(timing.training - timing.rollouts, 0) + " s, validation " +
        fmt(wall() - timing.training, 0) + " s)");
}

TrainSummary Training::finish() {
  inference::write_weights_file(dir_ + "/final.pacw", weights());
  write_plot(dir_, config_.name + ": validation deadlines met");
  TrainSummary sum;
  sum.iterations = iteration_;
  sum.decisions = static_cast<long>(dataset_.size());
  sum.wall_seconds = wall();
  sum.best_validation = best_validation_;
  sum.validation_min_feasible = validation_min_feasible_.all;
  sum.validation_teacher = validation_teacher_.all;
  sum.final_weights = dir_ + "/final.pacw";
  sum.best_weights = sim::file_exists(dir_ + "/best.pacw") ? dir_ + "/best.pacw" : "";
  say("done: " + std::to_string(iteration_) + " iterations, " + fmt(sum.wall_seconds, 1) +
      " s; validation best " + fmt(sum.best_validation, 3) + " against min_feasible " +
      fmt(sum.validation_min_feasible, 3) + " and the teacher " + fmt(sum.validation_teacher, 3) +
      "; weights " + sum.final_weights +
      (sum.best_weights.empty() ? "" : ", best " + sum.best_weights));
  return sum;
}

}  // namespace

TrainSummary train(const TrainConfig& config, const TrainOptions& options) {
  Training run(config, options);
  sim::ProgressBar bar("train", static_cast<size_t>(std::max<long>(run.max_iterations(), 1)),
                       options.progress);
  while (run.has_iterations_and_time_left()) {
    run.one_iteration();
    bar.update(static_cast<size_t>(run.iterations()));
  }
  bar.finish();
  return run.finish();
}

}  // namespace pacml::gpu
