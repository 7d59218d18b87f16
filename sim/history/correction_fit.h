// The site correction fitted from completed jobs (doc/PHYSICAL.md §11):
// `pacml calibrate --history` and the simulator's refits (history_simulation.h).
//
// Each usable job gives a ratio r = measured / predicted step time at its
// compute share s. Per (model, device):
//  * jobs more than 2× (or 4 robust deviations) from the group's median ratio
//    are set aside as stopped early or stalled;
//  * where the group's compute shares spread by at least kMinShareSpread
//    (it ran at several GPU counts or strategies), r = compute × s + comm ×
//    (1 − s) is fitted by least squares; otherwise only the total is
//    identified, and compute = comm = the geometric mean of r;
//  * each factor is shrunk in log space toward the site-wide factor with
//    weight n / (n + k) (a log-normal prior centred there). k is prior_jobs
//    where stated; else it is estimated from the history (empirical Bayes:
//    k = σ² / τ², the within-model variance of the log ratios over their
//    between-model variance), and where fewer than kMinPriorGroups models
//    can tell, the stated default kDefaultPriorJobs. The site-wide factor,
//    fitted the same way over every job, is shrunk toward 1 with the stated
//    k (prior_jobs, else kDefaultPriorJobs). Groups with fewer
//    than min_group_jobs jobs get no entry of their own (the site-wide entry
//    answers for them).
// Fewer than min_jobs usable jobs: refused (InputError), nothing is written.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/correction/step_correction.h"
#include "sim/history/history_records.h"

namespace pacml::sim {

// The prior's weight where the history cannot estimate it: a group of 8
// jobs moves halfway from the site-wide factor.
constexpr double kDefaultPriorJobs = 8;
// Models (groups with an entry) needed to estimate the between-model spread.
constexpr long kMinPriorGroups = 3;
// The estimate's bounds: a history with no spread between its models pins
// every model to the site-wide factor (k of 1,000 jobs).
constexpr double kMaxPriorJobs = 1000;

struct FitOptions {
  double startup_seconds = 0;        // subtracted from elapsed before dividing by steps
  std::optional<double> prior_jobs;  // k of the shrinkage n / (n + k); unset: estimated
  long min_jobs = 20;                // usable completed jobs below which the fit refuses
  long min_group_jobs = 3;           // jobs a (model, device) needs for an entry of its own
  int bootstrap = 1000;              // resamples of the error's confidence interval
  std::uint64_t seed = 1;
  std::string version;  // the correction's name
};

// One job as the fit uses it.
struct FitSample {
  std::string model, device;
  double predicted = 0, measured = 0;  // seconds per step
  double share = 1;                    // predicted compute share
  bool reported = false;               // measured by the job itself (job_report.h)
};

// Usable samples of joined jobs: those that reported their own step time
// (any state, if the steps they timed fit in their elapsed time), else
// COMPLETED ones, measured as (elapsed − start-up) / steps; the others are
// counted in `excluded` by reason (their state, etc.).
std::vector<FitSample> usable_samples(const std::vector<JoinedJob>& jobs, const FitOptions& options,
                                      std::map<std::string, long>& excluded);

// How far predictions are from measurements: |predicted / measured − 1|.
struct ErrorSummary {
  long jobs = 0;
  double median = 0, lo = 0, hi = 0;  // median and its 95 % bootstrap interval
  double median_log_ratio = 0;        // median log(predicted / measured): the bias
};

struct GroupFit {
  std::string model, device;
  long jobs = 0, set_aside = 0;
  bool split = false;  // compute and comm fitted apart (else the total only)
  CorrectionFactor raw, shrunk;
};

// The prior's weight a fit used, and where it came from.
struct PriorWeight {
  double jobs = kDefaultPriorJobs;               // k
  bool estimated = false;                        // from the history (else stated, or the default)
  long groups = 0;                               // the models the estimate used
  double within_log_sd = 0, between_log_sd = 0;  // σ and τ of the estimate
};

struct CorrectionFit {
  StepCorrection correction;
  PriorWeight prior;
  std::vector<GroupFit> groups;  // the site-wide one ("*", "*") first
  ErrorSummary before, after;    // over the samples, in-sample
};

// Throws InputError("--history", ...) with fewer than options.min_jobs samples.
CorrectionFit fit_correction(const std::vector<FitSample>& samples, const FitOptions& options);

// The error of `samples`' predictions, each corrected by `correction` (none:
// as predicted).
ErrorSummary prediction_error(const std::vector<FitSample>& samples,
                              const StepCorrection* correction, const FitOptions& options);

}  // namespace pacml::sim
