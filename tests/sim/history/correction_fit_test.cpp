// sim/history/correction_fit.h: the site correction fitted from completed
// jobs recovers known factors, sets stopped jobs aside, and refuses to fit
// from too little evidence.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "core/policy/policy.h"
#include "core/util/error.h"
#include "sim/history/correction_fit.h"

namespace pacml::sim {
namespace {

// `n` jobs of `model` whose true step is the prediction × (compute × s +
// comm × (1 − s)) × a noise of log-sd `noise`, at shares in [lo, hi].
std::vector<FitSample> synthetic(const std::string& model, int n, double compute, double comm,
                                 double lo, double hi, double noise, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<FitSample> out;
  for (int i = 0; i < n; ++i) {
    FitSample s;
    s.model = model, s.device = "A100";
    s.share = lo + (hi - lo) * rng.uniform();
    s.predicted = 0.05 + rng.uniform();
    const double wobble = std::exp(noise * (2 * rng.uniform() - 1) * 1.732);
    s.measured = s.predicted * (compute * s.share + comm * (1 - s.share)) * wobble;
    out.push_back(s);
  }
  return out;
}

const GroupFit& group(const CorrectionFit& fit, const std::string& model) {
  for (const GroupFit& g : fit.groups)
    if (g.model == model) return g;
  throw std::logic_error("no group " + model);
}

TEST(CorrectionFit, RecoversKnownFactorsFromASyntheticHistory) {
  std::vector<FitSample> samples = synthetic("gpt2", 300, 1.3, 2.5, 0.4, 1.0, 0.03, 1);
  for (const FitSample& s : synthetic("resnet50", 300, 1.6, 1.6, 0.97, 1.0, 0.03, 2))
    samples.push_back(s);
  FitOptions options;
  options.bootstrap = 200;
  const CorrectionFit fit = fit_correction(samples, options);
  const CorrectionFactor* gpt2 = fit.correction.find("gpt2", "A100");
  ASSERT_NE(gpt2, nullptr);
  EXPECT_TRUE(group(fit, "gpt2").split);
  EXPECT_NEAR(gpt2->compute, 1.3, 0.04);
  EXPECT_NEAR(gpt2->comm, 2.5, 0.1);
  // shares that do not spread identify the total only, said so
  EXPECT_FALSE(group(fit, "resnet50").split);
  EXPECT_NEAR(fit.correction.find("resnet50", "A100")->compute, 1.6, 0.03);
  EXPECT_GT(fit.before.median, 0.3);
  EXPECT_LT(fit.after.median, 0.05);
  EXPECT_LE(fit.after.lo, fit.after.median);
  EXPECT_GE(fit.after.hi, fit.after.median);
}

TEST(CorrectionFit, FewJobsAreShrunkTowardTheSiteAndStoppedJobsSetAside) {
  std::vector<FitSample> samples = synthetic("bert", 40, 1.5, 1.5, 1, 1, 0.0, 3);
  std::vector<FitSample> few = synthetic("vgg16", 4, 3.0, 3.0, 1, 1, 0.0, 4);
  samples.insert(samples.end(), few.begin(), few.end());
  // two bert jobs whose scripts ended after a tenth of their steps
  samples[0].measured /= 10, samples[1].measured /= 10;
  FitOptions options;
  options.prior_jobs = 8;
  options.bootstrap = 0;
  const CorrectionFit fit = fit_correction(samples, options);
  EXPECT_EQ(group(fit, "bert").set_aside, 2);
  EXPECT_NEAR(fit.correction.find("bert", "A100")->compute, 1.5, 0.05);
  // vgg16: 4 jobs say 3.0; n / (n + k) = 1/3 of the way from the site's factor
  const double site = fit.correction.find("*", "*")->compute;
  const double expected = std::exp(std::log(site) + (std::log(3.0) - std::log(site)) / 3);
  EXPECT_NEAR(fit.correction.find("vgg16", "A100")->compute, expected, 1e-9);
}

// Models whose factors differ far more than their jobs' noise: the
// estimated prior barely shrinks, so a model 3× from the site's factor
// keeps its own (the stated k = 8 kept it over 1 % off after 300 jobs).
TEST(CorrectionFit, AnEstimatedPriorLetsModelsFarFromTheSiteKeepTheirFactor) {
  std::vector<FitSample> samples;
  const std::pair<const char*, double> truth[] = {
      {"gpt2", 0.5}, {"bert", 1.0}, {"vgg16", 2.0}, {"resnet50", 4.5}};
  std::uint64_t seed = 10;
  for (const auto& [model, factor] : truth) {
    const std::vector<FitSample> jobs = synthetic(model, 300, factor, factor, 1, 1, 0.05, seed++);
    samples.insert(samples.end(), jobs.begin(), jobs.end());
  }
  FitOptions options;
  options.bootstrap = 0;
  const CorrectionFit fit = fit_correction(samples, options);
  EXPECT_TRUE(fit.prior.estimated);
  EXPECT_EQ(fit.prior.groups, 4);
  EXPECT_NEAR(fit.prior.within_log_sd, 0.05, 0.01);
  EXPECT_GT(fit.prior.between_log_sd, 0.6);
  EXPECT_LT(fit.prior.jobs, 0.05);
  for (const auto& [model, factor] : truth)
    EXPECT_NEAR(fit.correction.find(model, "A100")->compute / factor, 1, 0.006) << model;
  options.prior_jobs = kDefaultPriorJobs;  // stated: the farthest model is pulled off
  const CorrectionFit stated = fit_correction(samples, options);
  EXPECT_FALSE(stated.prior.estimated);
  EXPECT_GT(std::fabs(stated.correction.find("gpt2", "A100")->compute / 0.5 - 1), 0.01);
}

// Models that all run at the site's factor, with noisy jobs: no spread
// between them, so each is pinned to the site-wide factor, not its noise.
TEST(CorrectionFit, AnEstimatedPriorPinsModelsThatDoNotDifferToTheSite) {
  std::vector<FitSample> samples;
  std::uint64_t seed = 20;
  for (const char* model : {"gpt2", "bert", "vgg16", "resnet50"}) {
    const std::vector<FitSample> jobs = synthetic(model, 25, 1.5, 1.5, 1, 1, 0.3, seed++);
    samples.insert(samples.end(), jobs.begin(), jobs.end());
  }
  FitOptions options;
  options.bootstrap = 0;
  const CorrectionFit fit = fit_correction(samples, options);
  EXPECT_TRUE(fit.prior.estimated);
  EXPECT_GT(fit.prior.jobs, 30) << fit.prior.between_log_sd;
  const double site = fit.correction.find("*", "*")->compute;
  // the site's 100 jobs, toward 1 with the stated k = 8
  const double raw = group(fit, "*").raw.compute;
  EXPECT_NEAR(raw, 1.5, 0.15);
  EXPECT_NEAR(site, std::exp(std::log(raw) * 100 / (100 + kDefaultPriorJobs)), 1e-9);
  for (const char* model : {"gpt2", "bert", "vgg16", "resnet50"})
    EXPECT_NEAR(fit.correction.find(model, "A100")->compute / site, 1, 0.02) << model;
}

// Two models cannot tell how far models differ: the stated default.
TEST(CorrectionFit, FewerThanThreeModelsUseTheDefaultPrior) {
  std::vector<FitSample> samples = synthetic("gpt2", 30, 1.2, 1.2, 1, 1, 0.05, 30);
  const std::vector<FitSample> more = synthetic("bert", 30, 2.0, 2.0, 1, 1, 0.05, 31);
  samples.insert(samples.end(), more.begin(), more.end());
  FitOptions options;
  options.bootstrap = 0;
  const CorrectionFit fit = fit_correction(samples, options);
  EXPECT_FALSE(fit.prior.estimated);
  EXPECT_EQ(fit.prior.jobs, kDefaultPriorJobs);
}

TEST(CorrectionFit, TooLittleEvidenceIsRefused) {
  FitOptions options;
  options.min_jobs = 20;
  const std::vector<FitSample> samples = synthetic("gpt2", 19, 1.7, 1.7, 1, 1, 0.02, 5);
  try {
    fit_correction(samples, options);
    FAIL() << "fitted from 19 jobs";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("only 19 usable jobs"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("at least 20"), std::string::npos) << e.what();
  }
  std::vector<FitSample> enough = synthetic("gpt2", 20, 1.7, 1.7, 1, 1, 0.02, 5);
  EXPECT_NO_THROW(fit_correction(enough, options));
}

TEST(CorrectionFit, OnlyCompletedJobsAreMeasured) {
  JoinedJob done;
  done.decision.model = "gpt2", done.decision.device = "A100";
  done.decision.steps = 100, done.decision.step_time = 1, done.decision.compute_share = 1;
  done.outcome.state = "COMPLETED", done.outcome.elapsed = 230;
  JoinedJob timeout = done, cancelled = done, quick = done;
  timeout.outcome.state = "TIMEOUT", cancelled.outcome.state = "CANCELLED";
  quick.outcome.elapsed = 20;
  std::map<std::string, long> excluded;
  FitOptions options;
  options.startup_seconds = 30;
  const auto samples = usable_samples({done, timeout, cancelled, quick}, options, excluded);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_DOUBLE_EQ(samples[0].measured, 2.0);  // (230 − 30) / 100
  EXPECT_EQ(excluded.size(), 3u);
}

// A job's own report (job_report.h) is its measurement in any state: a
// timed-out job that timed its steps counts, with the steps it timed; a
// report claiming more seconds of steps than the job ran is ignored (and the
// job falls back to its state's rule).
TEST(CorrectionFit, AJobsOwnReportCountsInAnyStateIfItsStepsFitItsElapsedTime) {
  JoinedJob timeout;
  timeout.decision.model = "gpt2", timeout.decision.device = "A100";
  timeout.decision.steps = 1000, timeout.decision.step_time = 1;
  timeout.decision.compute_share = 1;
  timeout.outcome.state = "TIMEOUT", timeout.outcome.elapsed = 600;
  timeout.outcome.measured_steps = 400, timeout.outcome.measured_step_time = 1.4;
  JoinedJob boastful = timeout;  // 400 steps of 2 s = 800 s in a 600 s job
  boastful.outcome.measured_step_time = 2;
  JoinedJob completed_boastful = boastful;
  completed_boastful.outcome.state = "COMPLETED";
  completed_boastful.decision.steps = 300;
  std::map<std::string, long> excluded;
  const auto samples =
      usable_samples({timeout, boastful, completed_boastful}, FitOptions{}, excluded);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_TRUE(samples[0].reported);
  EXPECT_DOUBLE_EQ(samples[0].measured, 1.4);
  EXPECT_FALSE(samples[1].reported);
  EXPECT_DOUBLE_EQ(samples[1].measured, 2.0);  // 600 s / 300 steps
  EXPECT_EQ(excluded.at("reports (ignored) timing more seconds of steps than the job ran"), 2);
  EXPECT_EQ(excluded.at("TIMEOUT (did not run all its steps)"), 1);
}

// A log written while a correction was in force (pacml.conf's correction:)
// holds the model's step_time and, beside it, the corrected one the decision
// used. The refit compares accounting with the model's: jobs that really take
// 3× the model's step under a correction of 3× give a factor of 3 again, not
// 1 (which fitting against the corrected step would give, undoing it).
TEST(CorrectionFit, ALogWrittenUnderACorrectionIsFittedAgainstTheUncorrectedPrediction) {
  std::ostringstream log, sacct;
  sacct << "JobID|State|ElapsedRaw\n";
  for (int i = 0; i < 30; ++i) {
    log << R"({"outcome":"placed","decision":"1.)" << i << R"(","job_id":)" << 100 + i
        << R"(,"model":"gpt2","job_digest":"x","device":"A100","precision":"fp32",)"
        << R"("strategy":"data","batch":8,"gpus":2,"steps":100,"step_time":0.5,)"
        << R"("compute_share":1,"correction":"v1","correction_applied":true,)"
        << R"("correction_compute":3,"correction_comm":3,"corrected_step_time":1.5})"
        << "\n";
    sacct << 100 + i << "|COMPLETED|150\n";  // 100 steps of 1.5 s: 3× the model's
  }
  HistoryReport report;
  std::istringstream log_in(log.str()), sacct_in(sacct.str());
  const JoinResult joined = join_history(read_decision_log(log_in, "d.jsonl", report),
                                         read_sacct_accounting(sacct_in, "s.txt", report));
  ASSERT_EQ(joined.joined.size(), 30u);
  EXPECT_EQ(joined.joined[0].decision.step_time, 0.5);
  FitOptions options;
  options.prior_jobs = 0;  // no shrinkage: the factor the jobs say
  options.bootstrap = 0;
  std::map<std::string, long> excluded;
  const CorrectionFit fit =
      fit_correction(usable_samples(joined.joined, options, excluded), options);
  EXPECT_NEAR(fit.correction.find("gpt2", "A100")->compute, 3.0, 1e-9);
}

}  // namespace
}  // namespace pacml::sim
