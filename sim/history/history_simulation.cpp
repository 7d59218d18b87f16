#include "sim/history/history_simulation.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "core/cluster/cluster_spec.h"
#include "core/parallel/duration_model.h"
#include "core/policy/policy.h"
#include "core/util/error.h"
#include "core/util/hash.h"
#include "core/util/statistics.h"
#include "sim/gpu/fitted_workload.h"
#include "sim/history/corrected_predictions.h"
#include "sim/workload/paths.h"

namespace pacml::sim {
namespace {

// Streams of the world's randomness, apart from the workload's (the seed).
constexpr std::uint64_t kTruthStream = 0x7472757468ULL, kNoiseStream = 0x6e6f697365ULL;

double log_uniform(Rng& rng, double lo, double hi) {
  return std::exp(std::log(lo) + (std::log(hi) - std::log(lo)) * rng.uniform());
}

// Box–Muller: deterministic on every platform, as Rng is.
double standard_normal(Rng& rng) {
  const double u = 1 - rng.uniform(), v = rng.uniform();
  return std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
}

// The true factors of every model the jobs name, drawn in name order.
StepCorrection draw_truth(const std::vector<gpu::Job>& jobs, const std::string& device,
                          const HistorySimOptions& o) {
  std::set<std::string> models;
  for (const gpu::Job& job : jobs) models.insert(job.work->name());
  Rng rng(o.seed ^ kTruthStream);
  StepCorrection truth;
  truth.version = "truth";
  for (const std::string& model : models) {
    CorrectionFactor f;
    f.compute = o.bias * log_uniform(rng, o.spread_lo, o.spread_hi);
    f.comm = o.bias * log_uniform(rng, o.spread_lo, o.spread_hi);
    truth.factors[{model, device}] = f;
  }
  return truth;
}

// A job's own noise: the same in every replay of it.
double job_noise(const gpu::Job& job, const HistorySimOptions& o) {
  if (o.noise <= 0) return 1;
  Rng rng(fnv1a64(job.id) ^ o.seed ^ kNoiseStream);
  return std::exp(o.noise * standard_normal(rng));
}

enum class Mode { kNever, kLearns, kTruth };

// One replay of `jobs` predicting as `mode` says.
class SimRun {
 public:
  SimRun(Mode mode, const std::vector<gpu::Job>& jobs, DurationModel& durations,
         CorrectedPredictions& predictions, const StepCorrection& truth, const HistorySimOptions& o)
      : mode_(mode),
        jobs_(jobs),
        durations_(durations),
        predictions_(predictions),
        truth_(truth),
        o_(o) {}

  SimReplay run(const std::string& name);

 private:
  struct Started {
    double predicted = 0, actual = 0;  // seconds
    double model_step = 0, share = 1;
    bool settled = false;
  };
  double predict(const gpu::Job& job, int k) {
    if (mode_ == Mode::kNever) return run_seconds(durations_, job, k);
    return predictions_.seconds(job, k, mode_ == Mode::kTruth ? truth_ : current_);
  }
  double start(const gpu::Job& job, int k);
  void settle(long index, const gpu::JobOutcome& outcome);

  Mode mode_;
  const std::vector<gpu::Job>& jobs_;
  DurationModel& durations_;
  CorrectedPredictions& predictions_;
  const StepCorrection& truth_;
  const HistorySimOptions& o_;
  StepCorrection current_;  // kLearns: the last refit
  std::vector<FitSample> samples_;
  std::map<std::string, long> completed_;  // by model
  std::unordered_map<std::string, Started> started_;
  SimReplay out_;
};

double SimRun::start(const gpu::Job& job, int k) {
  Started s;
  s.predicted = predict(job, k);
  s.actual = predictions_.seconds(job, k, truth_) * job_noise(job, o_);
  s.model_step = predictions_.step_time(job, k);
  s.share = predictions_.share(job, k);
  s.settled = completed_[job.work->name()] >= o_.settled_after;
  started_[job.id] = s;
  return s.actual;
}

// A final outcome: recorded, and for a completed job the accounting a refit
// reads (the model's own prediction and the measured step).
void SimRun::settle(long index, const gpu::JobOutcome& outcome) {
  const gpu::Job& job = jobs_[static_cast<size_t>(index)];
  SimOutcome so;
  so.model = job.work->name();
  so.met = outcome.met;
  so.settled = completed_[so.model] >= o_.settled_after;
  if (outcome.gpus > 0) {
    const auto it = started_.find(job.id);
    // Every started job was timed by start(); job ids are unique per draw.
    if (it == started_.end()) throw std::logic_error("a job ended that never started: " + job.id);
    const Started s = it->second;
    started_.erase(it);
    so.completed = true;
    so.error = std::fabs(s.predicted / s.actual - 1);
    so.settled = s.settled;
    ++completed_[so.model];
    const double measured = s.actual / static_cast<double>(job.iterations);
    samples_.push_back({so.model, predictions_.device(), s.model_step, measured, s.share});
    if (mode_ == Mode::kLearns && static_cast<long>(samples_.size()) % o_.refit_every == 0) {
      try {
        CorrectionFit fit = fit_correction(samples_, o_.fit);
        current_ = std::move(fit.correction);
        out_.last_prior = fit.prior;
        ++out_.refits;
      } catch (const InputError&) {  // too little evidence yet: predict as before
      }
    }
  }
  out_.outcomes.push_back(so);
}

SimReplay SimRun::run(const std::string& name) {
  out_.name = name;
  gpu::ReplayConfig config;
  config.policy = gpu::Policy::parse(o_.policy, "--policy", model_search_dirs());
  config.admission = o_.admission;
  config.seed = o_.seed;
  config.predicted = [this](const gpu::Job& job, int k) { return predict(job, k); };
  config.actual = [this](const gpu::Job& job, int k) { return start(job, k); };
  size_t next = 0;
  const gpu::JobSource source = [&](gpu::Job& job) {
    if (next >= jobs_.size()) return false;
    job = jobs_[next++];
    return true;
  };
  out_.stats = replay_stream(source, durations_, config,
                             [this](long j, const gpu::JobOutcome& o) { settle(j, o); });
  std::vector<double> all, settled;
  long settled_met = 0;
  for (const SimOutcome& so : out_.outcomes) {
    out_.settled_outcomes += so.settled, settled_met += so.settled && so.met;
    if (!so.completed) continue;
    all.push_back(so.error);
    if (so.settled) settled.push_back(so.error);
  }
  if (!all.empty()) out_.median_error = median(all);
  if (!settled.empty()) out_.settled_median_error = median(settled);
  out_.settled_jobs = static_cast<long>(settled.size());
  if (out_.settled_outcomes > 0)
    out_.settled_met_rate =
        static_cast<double>(settled_met) / static_cast<double>(out_.settled_outcomes);
  out_.last_correction = current_;
  return std::move(out_);
}

// The fitted workload's jobs with deadlines from the true run time: the
// slack × (true / predicted) on the requested GPUs.
std::vector<gpu::Job> draw_jobs(const HistorySimOptions& o, DurationModel& durations,
                                CorrectedPredictions& predictions, StepCorrection& truth) {
  const gpu::FittedWorkload workload = gpu::load_workload_named(o.workload);
  std::vector<gpu::Job> jobs = gpu::generate_jobs(workload, o.load, o.jobs, o.seed, durations);
  truth = draw_truth(jobs, predictions.device(), o);
  rescale_deadlines(jobs, predictions, truth, durations.cluster_gpus());
  return jobs;
}

}  // namespace

HistorySimResult simulate_history(const HistorySimOptions& options) {
  HistorySimOptions o = options;
  o.fit.bootstrap = 0;  // a refit needs its factors, not their error's interval
  if (!(o.spread_lo > 0 && o.spread_lo <= o.spread_hi))
    throw InputError("--spread", "needs 0 < low <= high");
  if (!(o.bias > 0)) throw InputError("--bias", "must be positive");
  if (o.refit_every < 1) throw InputError("--refit-every", "must be at least 1");
  auto estimator = std::make_shared<const PhysicalEstimator>(load_cluster(o.cluster));
  DurationModel durations(estimator);
  CorrectedPredictions predictions(durations);
  HistorySimResult result;
  StepCorrection truth;
  const std::vector<gpu::Job> jobs = draw_jobs(o, durations, predictions, truth);
  result.device = predictions.device();
  for (const auto& [key, f] : truth.factors) result.truth[key.first] = f;
  const std::pair<Mode, const char*> modes[] = {
      {Mode::kNever, "never"}, {Mode::kLearns, "learns"}, {Mode::kTruth, "truth"}};
  for (const auto& [mode, name] : modes)
    result.replays.push_back(SimRun(mode, jobs, durations, predictions, truth, o).run(name));
  return result;
}

}  // namespace pacml::sim
