#include "sim/history/correction_fit.h"

#include <algorithm>
#include <cmath>

#include "core/policy/policy.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/statistics.h"

namespace pacml::sim {
namespace {

// Compute and comm are told apart only where the shares differ this much:
// below it the two columns of the regression are nearly the same.
constexpr double kMinShareSpread = 0.1;
// A completed job whose ratio is beyond max(2×, 4 robust deviations) of its
// group's median most likely stopped early (a script that exits before its
// steps) or stalled (a hung file system), not a site that runs it that way.
constexpr double kSetAsideLog = 0.6931471805599453;  // log 2
constexpr double kSetAsideMads = 4;
// The correction file's factor range (core/correction/correction_file.cpp).
constexpr double kMinFactor = 0.05, kMaxFactor = 20;

double clamp_factor(double f) {
  return std::clamp(f, kMinFactor, kMaxFactor);
}

// The samples kept for a fit; `set_aside` counts the others.
std::vector<FitSample> without_outliers(const std::vector<FitSample>& group, long& set_aside) {
  std::vector<double> logs;
  for (const FitSample& s : group) logs.push_back(std::log(s.measured / s.predicted));
  const double mid = median(logs);
  std::vector<double> deviations;
  for (double l : logs) deviations.push_back(std::fabs(l - mid));
  const double limit = std::max(kSetAsideLog, kSetAsideMads * 1.4826 * median(deviations));
  std::vector<FitSample> kept;
  for (size_t i = 0; i < group.size(); ++i)
    if (std::fabs(logs[i] - mid) <= limit) kept.push_back(group[i]);
  set_aside = static_cast<long>(group.size() - kept.size());
  return kept;
}

// Least squares of r = compute × s + comm × (1 − s); false when the
// shares do not spread or a factor comes out non-positive.
bool fit_split(const std::vector<FitSample>& group, CorrectionFactor& out) {
  double lo = 1, hi = 0;
  for (const FitSample& s : group) lo = std::min(lo, s.share), hi = std::max(hi, s.share);
  if (hi - lo < kMinShareSpread || group.size() < 3) return false;
  double aa = 0, ab = 0, bb = 0, ar = 0, br = 0;
  for (const FitSample& s : group) {
    const double a = s.share, b = 1 - s.share, r = s.measured / s.predicted;
    aa += a * a, ab += a * b, bb += b * b, ar += a * r, br += b * r;
  }
  const double det = aa * bb - ab * ab;
  if (!(std::fabs(det) > 1e-12)) return false;
  const double compute = (ar * bb - br * ab) / det, comm = (aa * br - ab * ar) / det;
  if (!(compute > 0 && comm > 0)) return false;
  out.compute = compute, out.comm = comm;
  return true;
}

// The group's factors before shrinkage; `allow_split` false: the total only
// (the site-wide group, whose shares differ by model rather than by count).
GroupFit fit_group(const std::string& model, const std::string& device,
                   const std::vector<FitSample>& group, bool allow_split) {
  GroupFit g;
  g.model = model, g.device = device;
  const std::vector<FitSample> kept = without_outliers(group, g.set_aside);
  g.jobs = static_cast<long>(kept.size());
  g.split = allow_split && fit_split(kept, g.raw);
  if (!g.split) {
    double sum = 0;
    for (const FitSample& s : kept) sum += std::log(s.measured / s.predicted);
    g.raw.compute = g.raw.comm = std::exp(sum / static_cast<double>(kept.size()));
  }
  g.raw.jobs = g.jobs;
  return g;
}

// log f' = log prior + w (log f − log prior), w = n / (n + k).
CorrectionFactor shrink(const CorrectionFactor& raw, const CorrectionFactor& prior, double k) {
  const double w = static_cast<double>(raw.jobs) / (static_cast<double>(raw.jobs) + k);
  auto toward = [&](double f, double p) {
    return clamp_factor(std::exp(std::log(p) + w * (std::log(clamp_factor(f)) - std::log(p))));
  };
  CorrectionFactor out = raw;
  out.compute = toward(raw.compute, prior.compute);
  out.comm = toward(raw.comm, prior.comm);
  return out;
}

// A group's log ratios log(measured / predicted): their mean, variance and count.
struct LogRatios {
  double mean = 0, variance = 0;
  long n = 0;
};

LogRatios log_ratios(const std::vector<FitSample>& kept) {
  LogRatios out;
  out.n = static_cast<long>(kept.size());
  for (const FitSample& s : kept) out.mean += std::log(s.measured / s.predicted);
  out.mean /= static_cast<double>(out.n);
  for (const FitSample& s : kept)
    out.variance += std::pow(std::log(s.measured / s.predicted) - out.mean, 2);
  if (out.n > 1) out.variance /= static_cast<double>(out.n - 1);
  return out;
}

// Empirical Bayes (the method of moments of a random-effects model): σ², the
// pooled within-model variance of the log ratios, and τ², the variance of
// the models' mean log ratios less the part σ² / n their noise explains.
// k = σ² / τ² is the prior weight under which a model's mean moves toward
// the site's as far as that noise warrants: a fixed k instead biases models
// far from the site (k = 8 kept a model 2.9× from the site's factor 3 % off
// after 300 jobs with 5 % noise).
PriorWeight estimate_prior(const std::vector<LogRatios>& groups) {
  PriorWeight prior;
  if (static_cast<long>(groups.size()) < kMinPriorGroups) return prior;
  double pooled = 0, dof = 0, grand = 0, noise_of_means = 0;
  for (const LogRatios& g : groups) {
    pooled += g.variance * static_cast<double>(g.n - 1), dof += static_cast<double>(g.n - 1);
    grand += g.mean;
  }
  if (!(dof > 0)) return prior;
  const double count = static_cast<double>(groups.size());
  const double sigma2 = pooled / dof;
  grand /= count;
  double spread = 0;
  for (const LogRatios& g : groups) {
    spread += std::pow(g.mean - grand, 2);
    noise_of_means += sigma2 / static_cast<double>(g.n);
  }
  const double tau2 = std::max(0.0, spread / (count - 1) - noise_of_means / count);
  prior.estimated = true;
  prior.groups = static_cast<long>(groups.size());
  prior.within_log_sd = std::sqrt(sigma2), prior.between_log_sd = std::sqrt(tau2);
  prior.jobs = tau2 > sigma2 / kMaxPriorJobs ? sigma2 / tau2 : kMaxPriorJobs;
  return prior;
}

}  // namespace

namespace {

// A job's own report (job_report.h), if it has one the accounting can
// vouch for: the steps it timed fit in its elapsed time (5 % and 1 s of
// slack for clocks and rounding). Any state: a timed-out or cancelled job's
// steps were timed as they ran.
bool reported_step_time(const AccountingEntry& outcome, std::map<std::string, long>& excluded,
                        double& step_time) {
  if (outcome.measured_steps < 1) return false;
  const double claimed = static_cast<double>(outcome.measured_steps) * outcome.measured_step_time;
  if (!(claimed <= 1.05 * outcome.elapsed + 1)) {
    ++excluded["reports (ignored) timing more seconds of steps than the job ran"];
    return false;
  }
  step_time = outcome.measured_step_time;
  return true;
}

}  // namespace

std::vector<FitSample> usable_samples(const std::vector<JoinedJob>& jobs, const FitOptions& options,
                                      std::map<std::string, long>& excluded) {
  std::vector<FitSample> out;
  const auto add = [&out](const JoinedJob& j, double measured, bool reported) {
    FitSample s;
    s.model = j.decision.model, s.device = j.decision.device;
    s.predicted = j.decision.step_time;
    s.measured = measured;
    s.share = j.decision.compute_share;
    s.reported = reported;
    out.push_back(std::move(s));
  };
  for (const JoinedJob& j : jobs) {
    double reported = 0;
    if (reported_step_time(j.outcome, excluded, reported)) {
      add(j, reported, true);
      continue;
    }
    if (j.outcome.state != "COMPLETED") {
      ++excluded[j.outcome.state + " (did not run all its steps)"];
      continue;
    }
    const double run = j.outcome.elapsed - options.startup_seconds;
    if (!(run > 0)) {
      ++excluded["COMPLETED within the start-up time"];
      continue;
    }
    add(j, run / static_cast<double>(j.decision.steps), false);
  }
  return out;
}

ErrorSummary prediction_error(const std::vector<FitSample>& samples,
                              const StepCorrection* correction, const FitOptions& options) {
  ErrorSummary e;
  std::vector<double> errors, logs;
  for (const FitSample& s : samples) {
    const CorrectionFactor* f = correction ? correction->find(s.model, s.device) : nullptr;
    const double predicted = f ? corrected_step_time(*f, s.predicted, s.share) : s.predicted;
    errors.push_back(std::fabs(predicted / s.measured - 1));
    logs.push_back(std::log(predicted / s.measured));
  }
  e.jobs = static_cast<long>(samples.size());
  if (samples.empty()) return e;
  e.median = median(errors);
  e.median_log_ratio = median(logs);
  Rng rng(options.seed);
  std::vector<double> medians, resample(errors.size());
  for (int b = 0; b < options.bootstrap; ++b) {
    for (double& x : resample) x = errors[rng.below(errors.size())];
    medians.push_back(median(resample));
  }
  e.lo = medians.empty() ? e.median : quantile(medians, 0.025);
  e.hi = medians.empty() ? e.median : quantile(medians, 0.975);
  return e;
}

CorrectionFit fit_correction(const std::vector<FitSample>& samples, const FitOptions& options) {
  if (static_cast<long>(samples.size()) < options.min_jobs)
    throw InputError(
        "--history",
        "only " + std::to_string(samples.size()) +
            " usable jobs with a prediction (completed, or timed by the job itself); a "
            "correction needs at "
            "least " +
            std::to_string(options.min_jobs) + " (--min-jobs): none written");
  CorrectionFit fit;
  fit.correction.version = options.version;
  GroupFit site = fit_group(kAnyName, kAnyName, samples, false);
  std::map<std::pair<std::string, std::string>, std::vector<FitSample>> by_group;
  for (const FitSample& s : samples) by_group[{s.model, s.device}].push_back(s);
  std::vector<GroupFit> groups;
  std::vector<LogRatios> spreads;
  for (const auto& [key, group] : by_group) {
    if (static_cast<long>(group.size()) < options.min_group_jobs) continue;
    groups.push_back(fit_group(key.first, key.second, group, true));
    long set_aside = 0;  // counted by fit_group
    spreads.push_back(log_ratios(without_outliers(group, set_aside)));
  }
  fit.prior = options.prior_jobs ? PriorWeight{*options.prior_jobs} : estimate_prior(spreads);
  // Toward 1 with the stated weight: one site's history cannot tell how far
  // sites differ from the model.
  site.shrunk =
      shrink(site.raw, CorrectionFactor{}, options.prior_jobs.value_or(kDefaultPriorJobs));
  fit.correction.factors[{kAnyName, kAnyName}] = site.shrunk;
  fit.groups.push_back(site);
  for (GroupFit& g : groups) {
    g.shrunk = shrink(g.raw, site.shrunk, fit.prior.jobs);
    fit.correction.factors[{g.model, g.device}] = g.shrunk;
    fit.groups.push_back(g);
  }
  fit.before = prediction_error(samples, nullptr, options);
  fit.after = prediction_error(samples, &fit.correction, options);
  return fit;
}

}  // namespace pacml::sim
