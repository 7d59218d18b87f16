// The GPU replay (sim/gpu/replay.h) on hand-made schedules: a measured
// throughput table fixes every duration, so each outcome can be worked out.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "core/gpu/placement.h"
#include "core/policy/policy.h"
#include "core/util/error.h"
#include "sim/gpu/hindsight_search.h"
#include "sim/gpu/met_bound.h"
#include "sim/gpu/replay.h"
#include "sim/gpu/trace.h"
#include "tests/test_data.h"

namespace pacml::gpu {
namespace {

// resnet50 at batch 64 on 1..8 GPUs, iterations/s: every duration is set.
std::shared_ptr<const PhysicalEstimator> estimator_4x8() {
  auto table = std::make_shared<ThroughputTable>();
  const double its[] = {1.0, 2.0, 2.4, 4.0, 4.2, 4.5, 4.8, 5.0};
  for (int k = 1; k <= 8; ++k) table->set("resnet50", 64, k, its[k - 1]);
  // One server of 8 GPUs: the whole cluster.
  std::istringstream in(
      "pacml_cluster: 1\nnetwork: fabric\nservers: 1\ngpus_per_server: 8\n"
      "intra_server_bandwidth: 300e9\n");
  return std::make_shared<const PhysicalEstimator>(load_cluster_spec(in, "test"),
                                                   PhysicalConstants::calibrated(), table);
}

Job job(const std::string& id, double submit, double deadline, long iterations, int requested) {
  static const ParallelJobPtr work = [] {
    ZooOptions options;
    options.batch = 64;
    return ParallelJob::from_zoo("resnet50", options);
  }();
  Job j;
  j.id = id;
  j.source = id;
  j.submit = submit;
  j.deadline = deadline;
  j.iterations = iterations;
  j.requested = requested;
  j.work = work;
  return j;
}

ReplayResult run(const std::vector<Job>& jobs, const std::string& policy, Admission admission,
                 QueueOrder order = QueueOrder::kEarliestDeadline,
                 DecisionTime decide = DecisionTime::kAtStart) {
  DurationModel durations(estimator_4x8());
  ReplayConfig config;
  config.policy = Policy::parse(policy, "test");
  config.admission = admission;
  config.order = order;
  config.decide = decide;
  return replay_on_gpus(jobs, durations, config);
}

// One reading of "immediate|queue|both" for experiment files, pacml replay and
// pacml workload run, and the text that reads back.
TEST(Admissions, BothIsImmediateThenQueueAndReadsBack) {
  using gpu::Admission;
  EXPECT_EQ(gpu::parse_admissions("both", "x"),
            (std::vector<Admission>{Admission::kImmediate, Admission::kQueue}));
  EXPECT_EQ(gpu::parse_admissions("queue", "x"), std::vector<Admission>{Admission::kQueue});
  for (const char* text : {"immediate", "queue", "both"})
    EXPECT_EQ(gpu::admissions_name(gpu::parse_admissions(text, "x")), text);
  EXPECT_THROW(gpu::parse_admissions("later", "x"), InputError);
}

TEST(GpuCluster, PacksJobsOnFewestServers) {
  std::istringstream in(
      "pacml_cluster: 1\nnetwork: fabric\nservers: 3\ngpus_per_server: 4\n"
      "intra_server_bandwidth: 300e9\n");
  ClusterState cluster(load_cluster_spec(in, "test"));
  const Allocation two = *cluster.find(2);
  cluster.take(two);
  // 6 GPUs: one whole server and 2 on the server already half used (tightest fit).
  const Allocation six = *cluster.find(6);
  ASSERT_EQ(six.size(), 2u);
  EXPECT_EQ(six[0].second, 4);
  EXPECT_EQ(six[1], (std::pair<int, int>{two[0].first, 2}));
  cluster.take(six);
  EXPECT_EQ(cluster.free_gpus(), 4);
  EXPECT_FALSE(cluster.find(5).has_value());
  cluster.release(two);
  EXPECT_EQ(cluster.free_gpus(), 6);
}

// fits(k) answers what find(k) would, on random occupancies of 5 servers of
// 8 GPUs (GPUs taken and given back), for every count; free_servers()
// counts what free_per_server() shows.
TEST(GpuClusterState, FitsAgreesWithFind) {
  std::istringstream in(
      "pacml_cluster: 1\nnetwork: fabric\nservers: 5\ngpus_per_server: 8\n"
      "intra_server_bandwidth: 300e9\n");
  const ClusterSpec spec = load_cluster_spec(in, "test");
  Rng rng(7);
  int compared = 0;
  for (int trial = 0; trial < 300; ++trial) {
    ClusterState cluster(spec);
    std::vector<Allocation> held;
    for (int step = 0; step < 9; ++step) {
      if (!held.empty() && rng.uniform() < 0.3) {
        cluster.release(held.back());
        held.pop_back();
        continue;
      }
      const auto a = cluster.find(1 + static_cast<int>(rng.uniform() * 12));
      if (a) cluster.take(*a), held.push_back(*a);
    }
    const auto& free = cluster.free_per_server();
    EXPECT_EQ(cluster.free_servers(), std::count(free.begin(), free.end(), 8)) << "trial " << trial;
    for (int k = -1; k <= 41; ++k, ++compared)
      EXPECT_EQ(cluster.fits(k), cluster.find(k).has_value()) << "trial " << trial << ", k " << k;
  }
  EXPECT_EQ(compared, 300 * 43);
}

// Ten jobs at once that each need 4 of the 8 GPUs for 25 s: two can be met,
// and the bound's GPUs-at-the-window's-end side says so once a window ends
// while they run.
TEST(MetBound, TenJobsThatEachNeedHalfTheClusterAtOnce) {
  std::vector<Job> jobs;
  for (int i = 0; i < 10; ++i) jobs.push_back(job("j" + std::to_string(i), 0, 25, 100, 1));
  DurationModel durations(estimator_4x8());
  MetBoundOptions tight;
  tight.step = 10, tight.max_window = 100;
  const MetBound b = met_upper_bound(jobs, durations, Admission::kImmediate, tight);
  EXPECT_EQ(b.jobs, 10);
  EXPECT_EQ(b.unservable, 0);
  EXPECT_EQ(b.met_at_most, 2);
  EXPECT_DOUBLE_EQ(b.rate, 0.2);
  EXPECT_EQ(run(jobs, "min_feasible", Admission::kImmediate).stats.met, 2);
  // Windows of half an hour end after the runs: their GPU-seconds (100 each)
  // fit, so the windows alone bound nothing here (no subgradient steps);
  // the under-way relaxation, checked at every submission, finds the 2.
  MetBoundOptions windows_only;
  windows_only.iterations = 0;
  EXPECT_EQ(met_upper_bound(jobs, durations, Admission::kImmediate, windows_only).met_at_most, 10);
  EXPECT_EQ(met_upper_bound(jobs, durations, Admission::kImmediate).met_at_most, 2);
  // In a queue too: with no slack, each must start at once to make it.
  EXPECT_EQ(met_upper_bound(jobs, durations, Admission::kQueue).met_at_most, 2);
  EXPECT_EQ(run(jobs, "min_feasible", Admission::kQueue).stats.met, 2);
}

TEST(MetBound, AJobNoCountServesIsMissedAndBadOptionsAreRefused) {
  // 100 iterations by t = 10: even 8 GPUs take 20 s.
  const std::vector<Job> jobs = {job("late", 0, 10, 100, 1), job("fine", 5, 500, 100, 1)};
  DurationModel durations(estimator_4x8());
  const MetBound b = met_upper_bound(jobs, durations, Admission::kQueue);
  EXPECT_EQ(b.unservable, 1);
  EXPECT_EQ(b.met_at_most, 1);
  MetBoundOptions bad;
  bad.step = 0;
  EXPECT_THROW(met_upper_bound(jobs, durations, Admission::kQueue, bad), InputError);
  EXPECT_EQ(met_upper_bound({}, durations, Admission::kQueue).met_at_most, 0);
  // Jobs a million years apart: a coarser grid, not a terabyte of windows.
  const std::vector<Job> apart = {job("then", 0, 500, 100, 1),
                                  job("now", 3e13, 3e13 + 500, 100, 1)};
  EXPECT_EQ(met_upper_bound(apart, durations, Admission::kImmediate).met_at_most, 2);
}

// Random jobs for the bound's and the search's property tests: arrivals at
// gaps up to `max_gap` s, iterations in [least, least + spread), a deadline
// (slack + slack_spread × u) × iterations seconds after arrival, and
// requests of 1 GPU (or 1..8 in turn with `varied_requests`).
struct RandomJobs {
  int count;
  double max_gap, least, spread, slack, slack_spread;
  bool varied_requests = false;
};

std::vector<Job> random_jobs(Rng& rng, const RandomJobs& shape) {
  std::vector<Job> jobs;
  double t = 0;
  for (int i = 0; i < shape.count; ++i) {
    t += rng.uniform() * shape.max_gap;
    const long iterations =
        static_cast<long>(shape.least) + static_cast<long>(rng.uniform() * shape.spread);
    const double deadline = t + iterations * (shape.slack + shape.slack_spread * rng.uniform());
    jobs.push_back(job("r" + std::to_string(i), t, deadline, iterations,
                       shape.varied_requests ? 1 + i % 8 : 1));
  }
  return jobs;
}

// The most deadlines any choice of counts meets with immediate admission on
// the one 8-GPU server (placement is capacity there): every job declined or
// started at its submission on each count that meets its deadline.
long best_immediate(const std::vector<Job>& jobs, DurationModel& durations) {
  const size_t n = jobs.size();
  std::vector<int> choice(n, 0);  // 0: declined, else its GPUs
  long best = 0;
  while (true) {
    std::vector<std::pair<double, int>> running;  // (end, GPUs)
    long met = 0;
    bool valid = true;
    for (size_t j = 0; j < n && valid; ++j) {
      if (!choice[j]) continue;
      const double d = run_seconds(durations, jobs[j], choice[j]);
      int used = 0;
      for (const auto& [end, k] : running) used += end > jobs[j].submit ? k : 0;
      valid = used + choice[j] <= 8 && jobs[j].submit + d <= jobs[j].deadline;
      running.emplace_back(jobs[j].submit + d, choice[j]);
      ++met;
    }
    if (valid) best = std::max(best, met);
    size_t j = 0;  // the next choice vector, like an odometer
    while (j < n && ++choice[j] > 8) choice[j++] = 0;
    if (j == n) return best;
  }
}

// On small bursts the bound is close to the true optimum, and never below it.
TEST(MetBound, NeverBelowTheOptimumOfSmallBursts) {
  Rng rng(5);
  DurationModel durations(estimator_4x8());
  MetBoundOptions fine;
  fine.step = 5, fine.max_window = 200;
  long tight = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const std::vector<Job> jobs = random_jobs(rng, {5, 8, 40, 120, 0.2, 0.5});
    const long optimum = best_immediate(jobs, durations);
    const long bound = met_upper_bound(jobs, durations, Admission::kImmediate, fine).met_at_most;
    EXPECT_GE(bound, optimum) << "trial " << trial;
    tight += bound == optimum;
  }
  EXPECT_GE(tight, 20);  // the test can tell a bound that is too low
}

// No policy beats the bound: random jobs, every rule policy, both admission
// modes, on the default grid and on a fine one.
TEST(MetBound, NoPolicyMeetsMoreThanTheBound) {
  Rng rng(11);
  DurationModel durations(estimator_4x8());
  MetBoundOptions fine;
  fine.step = 30, fine.max_window = 600;
  for (int trial = 0; trial < 12; ++trial) {
    const std::vector<Job> jobs =
        random_jobs(rng, {120, trial % 2 ? 5.0 : 40.0, 20, 400, 0.2, 1, true});
    for (Admission a : {Admission::kImmediate, Admission::kQueue}) {
      const long bound = std::min(met_upper_bound(jobs, durations, a).met_at_most,
                                  met_upper_bound(jobs, durations, a, fine).met_at_most);
      long best = 0;
      for (const char* p :
           {"min_feasible", "para_max", "requested", "fixed:4", "random", "capped:0.001"}) {
        const long met = run(jobs, p, a).stats.met;
        EXPECT_LE(met, bound) << "trial " << trial << ", " << p << ", " << admission_name(a);
        best = std::max(best, met);
      }
      EXPECT_GT(best, 0) << "trial " << trial;
    }
  }
}

bool same_outcome(const JobOutcome& a, const JobOutcome& b) {
  auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
  return a.gpus == b.gpus && same(a.start, b.start) && same(a.end, b.end) && a.met == b.met &&
         a.unservable == b.unservable && a.turned_away == b.turned_away;
}

// A policy that records each decision's count, in the order they are made.
Policy recording(const char* name, std::vector<int>& made) {
  return Policy::of_chooser(
      name, [rule = Policy::parse(name, "test"), &made](const DecisionInput& in, Rng& rng) {
        made.push_back(choose_gpus(rule, in, rng));
        return made.back();
      });
}

// Stepped to its end, a cursor gives every job the outcome the replay gives.
TEST(GpuReplayCursor, SteppedToTheEndIsTheReplay) {
  Rng rng(11);
  DurationModel durations(estimator_4x8());
  const std::vector<Job> jobs = random_jobs(rng, {150, 8, 20, 400, 0.3, 1, true});
  for (Admission a : {Admission::kImmediate, Admission::kQueue}) {
    ReplayConfig config;
    config.policy = Policy::parse("min_feasible", "test");
    config.admission = a;
    const ReplayResult whole = replay_on_gpus(jobs, durations, config);
    std::vector<JobOutcome> outcomes(jobs.size());
    ReplayCursor cursor(jobs, jobs.size(), durations, config,
                        [&](long j, const JobOutcome& o) { outcomes[j] = o; });
    long events = 0;
    while (cursor.step()) ++events;
    EXPECT_GE(events, static_cast<long>(jobs.size())) << admission_name(a);
    const ReplayStats stats = cursor.run_to_end();
    EXPECT_EQ(stats.met, whole.stats.met) << admission_name(a);
    for (size_t j = 0; j < jobs.size(); ++j)
      EXPECT_TRUE(same_outcome(outcomes[j], whole.jobs[j])) << admission_name(a) << ", job " << j;
  }
}

// A fork taken between any two events carries on as a replay from the start
// would that made the same decisions before it and the fork's after it,
// over the fork's jobs only (the next to arrive left out when the fork ends
// before it): the rollout search's rollouts rest on this.
TEST(GpuReplayCursor, AForkIsTheReplayFromTheStartWithTheSameChoices) {
  Rng rng(12);
  DurationModel durations(estimator_4x8());
  const std::vector<Job> jobs = random_jobs(rng, {80, 8, 20, 400, 0.3, 1, true});
  for (Admission a : {Admission::kImmediate, Admission::kQueue}) {
    std::vector<int> made;
    ReplayConfig config;
    config.policy = recording("min_feasible", made);
    config.admission = a;
    ReplayCursor cursor(jobs, jobs.size(), durations, config);
    for (long event = 0, forks = 0; forks < 12; ++event) {
      if (event % 9 == 4) {
        ++forks;
        const size_t end = std::min(jobs.size(), static_cast<size_t>(cursor.arrived()) +
                                                     static_cast<size_t>(event % 4) * 10);
        const std::vector<int> before = made;
        std::vector<int> after;
        std::vector<JobOutcome> forked(jobs.size());
        std::vector<bool> reported(jobs.size(), false);
        ReplayCursor fork(cursor, recording("para_max", after), end,
                          [&](long j, const JobOutcome& o) { forked[j] = o, reported[j] = true; });
        fork.run_to_end();
        // From the start: the same decisions, then para_max, jobs [0, end).
        size_t d = 0;
        ReplayConfig again = config;
        const Policy para_max = Policy::parse("para_max", "test");
        again.policy.chooser = [&](const DecisionInput& in, Rng& r) {
          const size_t i = d++;
          return i < before.size() ? before[i] : choose_gpus(para_max, in, r);
        };
        const std::vector<Job> first(jobs.begin(), jobs.begin() + static_cast<long>(end));
        const ReplayResult scratch = replay_on_gpus(first, durations, again);
        EXPECT_EQ(d, before.size() + after.size()) << admission_name(a) << ", event " << event;
        long compared = 0;
        for (size_t j = 0; j < end; ++j) {
          if (!reported[j]) continue;
          ++compared;
          EXPECT_TRUE(same_outcome(forked[j], scratch.jobs[j]))
              << admission_name(a) << ", event " << event << ", job " << j;
        }
        EXPECT_GT(compared, 0) << admission_name(a) << ", event " << event;
        EXPECT_EQ(made, before) << "the fork leaves the cursor as it was";
      }
      if (!cursor.step()) break;
    }
  }
}

HindsightSearchOptions search_over(const char* base, long lookahead) {
  HindsightSearchOptions o;
  o.base = Policy::parse(base, "test");
  o.lookahead = lookahead;
  o.progress = 0;
  return o;
}

// A job that would take all 8 GPUs, then two that need 4 each: knowing
// they come, the search turns the first away and meets two deadlines where
// min_feasible meets one.
TEST(HindsightSearch, TurnsAwayAJobThatWouldBlockTwo) {
  const std::vector<Job> jobs = {job("wide", 0, 100, 500, 1), job("b", 1, 26, 100, 1),
                                 job("c", 1, 26, 100, 1)};
  DurationModel durations(estimator_4x8());
  EXPECT_EQ(run(jobs, "min_feasible", Admission::kImmediate).stats.met, 1);
  const ReplayResult r = hindsight_search(jobs, durations, search_over("min_feasible", 10));
  EXPECT_EQ(r.stats.met, 2);
  EXPECT_EQ(r.jobs[0].gpus, 0);
  EXPECT_EQ(r.jobs[1].gpus, 4);
  EXPECT_EQ(r.stats.policy, "hindsight(min_feasible, 10)");
}

// Looking to the end of the trace, the search never meets fewer deadlines
// than its base (rollout improves on the policy it rolls out), whichever
// deterministic policy the base is (--hindsight-base), and it is
// deterministic.
TEST(HindsightSearch, NeverWorseThanItsBaseOverTheWholeTrace) {
  Rng rng(3);
  DurationModel durations(estimator_4x8());
  for (int trial = 0; trial < 6; ++trial) {
    const std::vector<Job> jobs = random_jobs(rng, {40, 10, 20, 300, 0.2, 1});
    for (const char* base_name : {"min_feasible", "para_max", "capped:0.002"}) {
      const long base = run(jobs, base_name, Admission::kImmediate).stats.met;
      const ReplayResult r = hindsight_search(jobs, durations, search_over(base_name, 40));
      EXPECT_GE(r.stats.met, base) << "trial " << trial << ", base " << base_name;
      EXPECT_LE(r.stats.met, met_upper_bound(jobs, durations, Admission::kImmediate).met_at_most);
      EXPECT_EQ(hindsight_search(jobs, durations, search_over(base_name, 40)).stats.met,
                r.stats.met);
    }
  }
}

// With a queue too: the search never meets fewer deadlines than its base
// over the whole trace, stays within the capacity bound and is
// deterministic; on the three jobs above it turns the wide one away.
TEST(HindsightSearch, WithAQueueNeverWorseThanItsBase) {
  DurationModel durations(estimator_4x8());
  HindsightSearchOptions queue = search_over("min_feasible", 40);
  queue.admission = Admission::kQueue;
  const std::vector<Job> three = {job("wide", 0, 100, 500, 1), job("b", 1, 26, 100, 1),
                                  job("c", 1, 26, 100, 1)};
  EXPECT_EQ(run(three, "min_feasible", Admission::kQueue).stats.met, 1);
  const ReplayResult r3 = hindsight_search(three, durations, queue);
  EXPECT_EQ(r3.stats.met, 2);
  EXPECT_TRUE(r3.jobs[0].turned_away);
  Rng rng(5);
  for (int trial = 0; trial < 6; ++trial) {
    const std::vector<Job> jobs = random_jobs(rng, {40, 10, 20, 300, 0.2, 1});
    const long base = run(jobs, "min_feasible", Admission::kQueue).stats.met;
    const ReplayResult r = hindsight_search(jobs, durations, queue);
    EXPECT_GE(r.stats.met, base) << "trial " << trial;
    EXPECT_LE(r.stats.met, met_upper_bound(jobs, durations, Admission::kQueue).met_at_most);
    EXPECT_EQ(hindsight_search(jobs, durations, queue).stats.met, r.stats.met);
  }
}

// The search's labels for another policy's decisions: one per decision that
// policy's replay makes, in order; on the three jobs above, min_feasible
// starts the wide job where the search would turn it away. Without a
// policy to follow the labels are the search's own choices.
TEST(HindsightSearch, LabelsEveryDecisionOfTheFollowedPolicy) {
  DurationModel durations(estimator_4x8());
  const std::vector<Job> three = {job("wide", 0, 100, 500, 1), job("b", 1, 26, 100, 1),
                                  job("c", 1, 26, 100, 1)};
  const Policy min_feasible = Policy::parse("min_feasible", "test");
  const std::vector<int> labels =
      hindsight_labels(three, durations, search_over("min_feasible", 10), &min_feasible);
  ASSERT_EQ(labels.size(), 3u);
  EXPECT_EQ(labels[0], kTurnAway);
  EXPECT_EQ(run(three, "min_feasible", Admission::kImmediate).jobs[0].gpus, 8);
  Rng rng(9);
  for (Admission a : {Admission::kImmediate, Admission::kQueue}) {
    const std::vector<Job> jobs = random_jobs(rng, {60, 10, 20, 300, 0.2, 1});
    HindsightSearchOptions o = search_over("min_feasible", 20);
    o.admission = a;
    for (const char* name : {"para_max", "min_feasible"}) {
      const Policy follow = Policy::parse(name, "test");
      std::vector<int> made;
      ReplayConfig config;
      config.policy = recording(name, made);
      config.admission = a;
      replay_on_gpus(jobs, durations, config);
      EXPECT_EQ(hindsight_labels(jobs, durations, o, &follow).size(), made.size())
          << admission_name(a) << ", " << name;
    }
    const std::vector<int> own = hindsight_labels(jobs, durations, o, nullptr);
    size_t d = 0;
    ReplayConfig config;
    config.admission = a;
    config.policy =
        Policy::of_chooser("own", [&](const DecisionInput&, Rng&) { return own.at(d++); });
    EXPECT_EQ(replay_on_gpus(jobs, durations, config).stats.met,
              hindsight_search(jobs, durations, o).stats.met)
        << admission_name(a);
    EXPECT_EQ(d, own.size()) << admission_name(a);
  }
}

// Each miss has one reason, and with the met and the unservable they add up
// to every job: turned away by the policy, never started otherwise (no room,
// or out of time in the queue), or started and late.
TEST(GpuReplay, MissesAreSplitByWhatCausedThem) {
  // 8 GPUs. "wide" needs all of them until t = 100; "blocked" needs 4 at
  // t = 1; "never" cannot make it; "costly" runs 1 GPU-hour; "slow" needs 2.
  const std::vector<Job> jobs = {job("wide", 0, 100, 500, 8), job("blocked", 1, 30, 100, 1),
                                 job("never", 2, 3, 100, 1), job("costly", 200, 5000, 3600, 1),
                                 job("slow", 300, 360, 100, 1)};
  const ReplayResult capped = run(jobs, "capped:0.1", Admission::kImmediate);
  EXPECT_EQ(capped.stats.met, 2);                        // wide, slow
  EXPECT_DOUBLE_EQ(capped.stats.no_start_rate, 0.2);     // blocked: no room at its arrival
  EXPECT_DOUBLE_EQ(capped.stats.unservable_rate, 0.2);   // never
  EXPECT_DOUBLE_EQ(capped.stats.turned_away_rate, 0.2);  // costly: over the cap
  EXPECT_TRUE(capped.jobs[3].turned_away);
  EXPECT_FALSE(capped.jobs[1].turned_away);
  // requested ignores deadlines: "slow" starts on its 1 GPU and ends at 400.
  const ReplayResult requested = run(jobs, "requested", Admission::kQueue);
  EXPECT_DOUBLE_EQ(requested.stats.late_rate, 0.2);
  EXPECT_EQ(requested.jobs[4].gpus, 1);
  for (const ReplayResult* r : {&capped, &requested}) {
    const ReplayStats& s = r->stats;
    EXPECT_DOUBLE_EQ(s.deadline_met_rate + s.unservable_rate + s.turned_away_rate +
                         s.no_start_rate + s.late_rate,
                     1);
  }
}

TEST(GpuReplay, MinFeasibleTakesTheFewestGpusThatMeetTheDeadline) {
  // 100 iterations by t = 30: 1 GPU takes 100 s, 2 take 50, 3 take 42, 4 take 25.
  const auto r = run({job("a", 0, 30, 100, 1)}, "min_feasible", Admission::kImmediate);
  EXPECT_EQ(r.jobs[0].gpus, 4);
  EXPECT_DOUBLE_EQ(r.jobs[0].end, 25);
  EXPECT_TRUE(r.jobs[0].met);
  EXPECT_EQ(r.stats.met, 1);
  EXPECT_DOUBLE_EQ(r.stats.gpu_hours, 4 * 25 / 3600.0);
}

TEST(GpuReplay, CappedTurnsAwayAJobWhoseFewestGpusCostMoreThanTheCap) {
  // 3600 iterations by t = 4000: 1 GPU, 3600 s, 1 GPU-hour = 1/8 of the
  // 8-GPU cluster's hour. A cap of 0.1 cluster-hours turns it away; 0.2 starts it.
  const std::vector<Job> jobs = {job("a", 0, 4000, 3600, 1)};
  EXPECT_EQ(run(jobs, "capped:0.1", Admission::kImmediate).jobs[0].gpus, 0);
  const auto started = run(jobs, "capped:0.2", Admission::kImmediate);
  EXPECT_EQ(started.jobs[0].gpus, 1);
  EXPECT_TRUE(started.jobs[0].met);
  // In a queue a job the cap turns away waits, never starts, and is missed.
  const auto queued = run(jobs, "capped:0.1", Admission::kQueue);
  EXPECT_EQ(queued.jobs[0].gpus, 0);
  EXPECT_EQ(queued.stats.met, 0);
  EXPECT_THROW(Policy::parse("capped:-1", "t"), InputError);
  EXPECT_THROW(Policy::parse("capped:lots", "t"), InputError);
}

TEST(GpuReplay, AJobWaitsInTheQueueAndStillMeetsItsDeadline) {
  // a holds all 8 GPUs for 20 s (100 iterations at 5/s). b arrives at 1 and
  // needs 40 iterations by t = 35: at t = 20, 1, 2 and 3 GPUs (40, 20, 17 s)
  // are too slow, 4 GPUs take 10 s and end at 30.
  const std::vector<Job> jobs = {job("a", 0, 20, 100, 8), job("b", 1, 35, 40, 1)};
  const auto queued = run(jobs, "min_feasible", Admission::kQueue);
  EXPECT_EQ(queued.jobs[0].gpus, 8);
  EXPECT_DOUBLE_EQ(queued.jobs[1].start, 20);
  EXPECT_EQ(queued.jobs[1].gpus, 4);
  EXPECT_DOUBLE_EQ(queued.jobs[1].end, 30);
  EXPECT_TRUE(queued.jobs[1].met);
  EXPECT_DOUBLE_EQ(queued.stats.queue_delay_mean, (0 + 19) / 2.0);
  // Immediate admission: no GPU is free when b arrives, so it is blocked.
  const auto immediate = run(jobs, "min_feasible", Admission::kImmediate);
  EXPECT_EQ(immediate.jobs[1].gpus, 0);
  EXPECT_FALSE(immediate.jobs[1].met);
  EXPECT_DOUBLE_EQ(immediate.stats.blocking_rate, 0.5);
}

TEST(GpuReplay, AJobExpiresInTheQueueOnceNoGpuCountCanMeetItsDeadline) {
  // c needs 100 iterations by t = 24: 8 GPUs take 20 s, so it could still
  // make it when it arrives at 2, but not when a frees the GPUs at 20.
  const std::vector<Job> jobs = {job("a", 0, 20, 100, 8), job("c", 2, 24, 100, 8)};
  const auto r = run(jobs, "min_feasible", Admission::kQueue);
  EXPECT_EQ(r.jobs[1].gpus, 0);
  EXPECT_FALSE(r.jobs[1].met);
  EXPECT_FALSE(r.jobs[1].unservable);  // servable on an empty cluster at submission
  EXPECT_EQ(r.stats.met, 1);
  // Submitted at 10 with the same deadline it is unservable from the start.
  const auto late =
      run({job("a", 0, 20, 100, 8), job("c", 10, 24, 100, 8)}, "min_feasible", Admission::kQueue);
  EXPECT_TRUE(late.jobs[1].unservable);
  EXPECT_DOUBLE_EQ(late.stats.unservable_rate, 0.5);
}

// doc/SLURM.md §10: a job no GPU count could serve even on an empty cluster
// is turned away at submission, as job_submit/pacml refuses it under
// on_block: queue (GpuEngine.AJobNoGpuCountCanServeIsRefusedEvenWhenQueueing).
TEST(GpuReplay, AJobNoGpuCountCanServeNeverWaitsWhateverThePolicy) {
  // u needs 100 iterations by t = 10 on an empty cluster: 8 GPUs take 20 s.
  const std::vector<Job> jobs = {job("u", 0, 10, 100, 8)};
  for (const char* policy : {"min_feasible", "para_max", "fixed:8", "requested"}) {
    const auto r = run(jobs, policy, Admission::kQueue);
    EXPECT_EQ(r.jobs[0].gpus, 0) << policy;
    EXPECT_TRUE(r.jobs[0].unservable) << policy;
    EXPECT_EQ(r.stats.started, 0) << policy;
  }
  // Immediate admission is the paper's rule: para_max starts it, to miss.
  const auto immediate = run(jobs, "para_max", Admission::kImmediate);
  EXPECT_EQ(immediate.jobs[0].gpus, 8);
  EXPECT_FALSE(immediate.jobs[0].met);
}

// doc/SLURM.md §10: --decide submission fixes a waiting job's count when it
// is submitted, as job_submit/pacml does, and drops it once that count can
// no longer end by the deadline, as Slurm's deadline does.
TEST(GpuReplay, DecidingAtSubmissionKeepsTheCountTheSlurmPluginWouldQueue) {
  // a holds all 8 GPUs until 20. b (40 iterations by 35) arrives at 1: on an
  // empty cluster min_feasible picks 2 GPUs (20 s, ends 21). Decided at
  // start it gets 4 at t = 20 and meets 35; with 2 fixed, 20 + 20 > 35.
  const std::vector<Job> jobs = {job("a", 0, 20, 100, 8), job("b", 1, 35, 40, 1)};
  const auto at_start = run(jobs, "min_feasible", Admission::kQueue);
  EXPECT_EQ(at_start.jobs[1].gpus, 4);
  EXPECT_TRUE(at_start.jobs[1].met);
  const auto at_submission = run(jobs, "min_feasible", Admission::kQueue,
                                 QueueOrder::kEarliestDeadline, DecisionTime::kAtSubmission);
  EXPECT_EQ(at_submission.jobs[1].gpus, 0);
  EXPECT_FALSE(at_submission.jobs[1].unservable);
  EXPECT_EQ(at_submission.stats.met, 1);
  // By 40: one GPU would end at 41, so 2 are fixed again, and started at 20
  // they end exactly at 40.
  const auto later =
      run({job("a", 0, 20, 100, 8), job("b", 1, 40, 40, 1)}, "min_feasible", Admission::kQueue,
          QueueOrder::kEarliestDeadline, DecisionTime::kAtSubmission);
  EXPECT_EQ(later.jobs[1].gpus, 2);
  EXPECT_DOUBLE_EQ(later.jobs[1].end, 40);
  EXPECT_TRUE(later.jobs[1].met);
  // requested: b's one GPU misses 35 even on an empty cluster (40 s), so the
  // plugin refuses it: turned away at once instead of starting late at 20.
  EXPECT_EQ(run(jobs, "requested", Admission::kQueue).jobs[1].gpus, 1);
  const auto refused = run(jobs, "requested", Admission::kQueue, QueueOrder::kEarliestDeadline,
                           DecisionTime::kAtSubmission);
  EXPECT_EQ(refused.jobs[1].gpus, 0);
  EXPECT_EQ(refused.stats.started, 1);
  EXPECT_THROW(parse_decision_time("later", "--decide"), InputError);
}

TEST(GpuReplay, EarliestDeadlineFirstOrdersTheQueue) {
  // While a runs, d (by 60) and e (by 40) wait, 100 iterations each. EDF at
  // t = 20: e takes 8 GPUs (ends 40), then d takes 8 (ends 60): both met.
  // Submission order: d takes 4 GPUs (25 s, ends 45; 3 would end at 61.7);
  // e cannot meet 40 on the 4 left and expires.
  const std::vector<Job> jobs = {job("a", 0, 20, 100, 8), job("d", 1, 60, 100, 1),
                                 job("e", 2, 40, 100, 1)};
  const auto edf = run(jobs, "min_feasible", Admission::kQueue, QueueOrder::kEarliestDeadline);
  EXPECT_EQ(edf.jobs[2].gpus, 8);
  EXPECT_DOUBLE_EQ(edf.jobs[2].end, 40);
  EXPECT_DOUBLE_EQ(edf.jobs[1].start, 40);
  EXPECT_EQ(edf.stats.met, 3);
  const auto fifo = run(jobs, "min_feasible", Admission::kQueue, QueueOrder::kSubmission);
  EXPECT_EQ(fifo.jobs[1].gpus, 4);
  EXPECT_EQ(fifo.jobs[2].gpus, 0);
  EXPECT_EQ(fifo.stats.met, 2);
}

TEST(GpuReplay, RequestedAndParaMaxIgnoreTheDeadline) {
  const std::vector<Job> jobs = {job("a", 0, 30, 100, 2)};
  const auto requested = run(jobs, "requested", Admission::kImmediate);
  EXPECT_EQ(requested.jobs[0].gpus, 2);
  EXPECT_FALSE(requested.jobs[0].met);  // 50 s, deadline 30
  const auto fastest = run(jobs, "para_max", Admission::kImmediate);
  EXPECT_EQ(fastest.jobs[0].gpus, 8);  // 5 its/s: the fastest count
  EXPECT_EQ(run(jobs, "fixed:4", Admission::kImmediate).jobs[0].gpus, 4);
  EXPECT_THROW(Policy::parse("para_min", "--policies"), InputError);
}

TEST(GpuReplay, RandomIsDeterministicPerSeed) {
  std::vector<Job> jobs;
  for (int i = 0; i < 20; ++i) jobs.push_back(job(std::to_string(i), i, 1e9, 10, 1));
  const auto a = run(jobs, "random", Admission::kQueue), b = run(jobs, "random", Admission::kQueue);
  for (size_t j = 0; j < jobs.size(); ++j) EXPECT_EQ(a.jobs[j].gpus, b.jobs[j].gpus);
}

// ---- trace records to GPU jobs (sim/gpu/trace.h), one test per format ----

std::vector<sim::TraceRecord> read_text(const std::string& text, sim::TraceFormat format,
                                        sim::TraceReport& report) {
  std::istringstream in(text);
  return sim::read_trace(in, "t", format, sim::TraceReadOptions(), report);
}

std::vector<Job> map_text(const std::string& text, sim::TraceFormat format,
                          const TraceMapping& mapping, MappingReport& report) {
  sim::TraceReport read;
  return jobs_from_trace(read_text(text, format, read), mapping, *estimator_4x8(), report);
}

// The one-GPU seconds of `iterations` of the job: what β and the fallback scale.
double one_gpu(const Job& j, long iterations) {
  return static_cast<double>(iterations) * estimator_4x8()->single_gpu_step_time(*j.work);
}

TEST(GpuTrace, SkipsAndCountsWhatItCannotReplay) {
  std::vector<sim::TraceRecord> records(4);
  records[0].model = "resnet50", records[0].batch = 64, records[0].iterations = 10;
  records[0].submit = 5, records[0].deadline = 50;
  records[1].model = "alphafold", records[1].iterations = 10;
  records[2].model = "vgg16", records[2].iterations = -1, records[2].batch = 1 << 24;
  records[3].model = "bert", records[3].batch = 32, records[3].iterations = 7, records[3].gpus = 4;
  records[3].submit = 1, records[3].deadline = 60;
  TraceMapping mapping;
  mapping.unknown_model = "skip";
  MappingReport report;
  const auto jobs = jobs_from_trace(records, mapping, *estimator_4x8(), report);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].work->name(), "bert-base");  // sorted by submission
  EXPECT_EQ(jobs[0].requested, 4);
  EXPECT_EQ(jobs[0].work->transformer().seq_len, 384);
  EXPECT_EQ(jobs[0].deadline, 60);
  EXPECT_EQ(report.skipped, 2);
  EXPECT_EQ(report.skipped_by_reason.at("unknown model 'alphafold'"), 1);
  EXPECT_EQ(report.skipped_by_reason.size(), 2u);  // and vgg16's batch
  EXPECT_EQ(report.jobs_by_model.at("bert"), 1);
  EXPECT_EQ(report.deadline_from.at("deadline"), 2);
}

TEST(GpuTrace, AnUnknownModelIsRejectedWithFileLineByDefault) {
  std::vector<sim::TraceRecord> records(1);
  records[0].model = "alphafold", records[0].source = "trace.csv:7";
  MappingReport report;
  try {
    jobs_from_trace(records, TraceMapping(), *estimator_4x8(), report);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("trace.csv:7: unknown model 'alphafold'"),
              std::string::npos);
  }
  TraceMapping mapped;
  mapped.unknown_model = "resnet50";
  const auto jobs = jobs_from_trace(records, mapped, *estimator_4x8(), report);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].work->name(), "resnet50");
  EXPECT_EQ(report.jobs_by_model.at("alphafold → resnet50 (unknown_model)"), 1);
}

TEST(GpuTrace, ABadMapModelsOrUnknownModelTargetNamesItsOption) {
  std::vector<sim::TraceRecord> none;
  MappingReport report;
  TraceMapping m;
  m.models = {"resnet50", "llama"};
  EXPECT_THROW(
      {
        try {
          jobs_from_trace(none, m, *estimator_4x8(), report);
        } catch (const InputError& e) {
          EXPECT_EQ(e.where(), "models");
          throw;
        }
      },
      InputError);
  m = TraceMapping();
  m.model_map["opt"] = "/nonexistent/opt.txt";
  EXPECT_THROW(jobs_from_trace(none, m, *estimator_4x8(), report), InputError);
  m = TraceMapping();
  m.unknown_model = "llama";
  EXPECT_THROW(jobs_from_trace(none, m, *estimator_4x8(), report), InputError);
}

TEST(GpuTrace, ElasticFlowKeepsItsDeadlineIterationsBatchAndStandIns) {
  MappingReport report;
  const auto jobs = map_text(
      "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n"
      "a,10,500,resnet50,900,128,8,300\n"
      "b,4,20,bert,80,64,2,40\n",
      sim::TraceFormat::kElasticFlow, TraceMapping(), report);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].id, "b");
  EXPECT_EQ(jobs[0].work->name(), "bert-base");
  EXPECT_EQ(jobs[1].work->global_batch(), 128);
  EXPECT_EQ(jobs[1].iterations, 500);
  EXPECT_EQ(jobs[1].requested, 8);
  EXPECT_EQ(jobs[1].deadline, 900);
  EXPECT_EQ(report.steps_fallback, 0);
}

TEST(GpuTrace, SacctTakesTheCommentsRequestElseTheTimeLimitElseTheFallback) {
  TraceMapping mapping;
  mapping.models = {"vgg16"};
  mapping.steps = 30;
  MappingReport report;
  const auto jobs = map_text(
      "JobID|Submit|Start|End|NNodes|AllocTRES|Timelimit|State|Comment\n"
      "10|2026-01-01T00:00:00|2026-01-01T00:01:00|2026-01-01T00:11:00|1|cpu=1,gres/gpu=4|"
      "01:00:00|COMPLETED|pacml:model=resnet50,steps=100,beta=0.5\n"
      "10.batch|2026-01-01T00:00:00|2026-01-01T00:01:00|2026-01-01T00:11:00|1||||\n"
      "11|2026-01-01T00:00:10|Unknown|Unknown|2||00:30:00|PENDING|pacml:model=gpt2,steps=20\n"
      "12|2026-01-01T00:00:20|Unknown|Unknown|1||UNLIMITED|PENDING|\n",
      sim::TraceFormat::kSacct, mapping, report);
  ASSERT_EQ(jobs.size(), 3u);
  const double t0 = 1767225600;  // 2026-01-01T00:00:00 UTC
  EXPECT_EQ(jobs[0].work->name(), "resnet50");
  EXPECT_EQ(jobs[0].iterations, 100);
  EXPECT_EQ(jobs[0].requested, 4);
  EXPECT_DOUBLE_EQ(jobs[0].deadline, t0 + 0.5 * one_gpu(jobs[0], 100));
  EXPECT_EQ(jobs[1].work->name(), "gpt2");
  EXPECT_EQ(jobs[1].requested, 2);
  EXPECT_DOUBLE_EQ(jobs[1].deadline, t0 + 10 + 1800);  // --time is the requirement
  EXPECT_EQ(jobs[2].work->name(), "vgg16");            // no model: --models
  EXPECT_EQ(jobs[2].iterations, 30);                   // no steps: --steps
  const double beta = (jobs[2].deadline - (t0 + 20)) / one_gpu(jobs[2], 30);
  EXPECT_GT(beta, 0);
  EXPECT_LE(beta, 1);
  EXPECT_EQ(report.jobs_by_model.at("(no model) → vgg16"), 1);
  EXPECT_EQ(report.deadline_from.at("beta"), 1);
  EXPECT_EQ(report.deadline_from.at("time limit"), 1);
  EXPECT_EQ(report.deadline_from.at("fallback beta A"), 1);
  EXPECT_EQ(report.steps_fallback, 1);
}

TEST(GpuTrace, SqueueJsonTakesGraphFilesAtTheirProfiledBatchAndCountsUnknownModels) {
  const std::string graph = pacml::testing::fixture("tiny.txt");
  const std::string text =
      R"({"jobs": [{"job_id": 1, "submit_time": 100, "time_limit": {"set": true, "number": 10},
                    "tres_per_job": "gres/gpu:2", "comment": "pacml:graph=)" +
      graph + R"(,steps=40,deadline=00:10:00"},
                   {"job_id": 2, "submit_time": 50, "comment": "pacml:model=llama"}]})";
  MappingReport report;
  EXPECT_THROW(map_text(text, sim::TraceFormat::kSqueueJson, TraceMapping(), report), InputError);
  TraceMapping skip;
  skip.unknown_model = "skip";
  report = MappingReport();
  const auto jobs = map_text(text, sim::TraceFormat::kSqueueJson, skip, report);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].work->global_batch(), kDefaultProfiledBatch);
  EXPECT_EQ(jobs[0].requested, 2);
  EXPECT_EQ(jobs[0].iterations, 40);
  EXPECT_DOUBLE_EQ(jobs[0].deadline, 700);  // the comment's deadline wins over the time limit
  EXPECT_EQ(report.skipped_by_reason.at("unknown model 'llama'"), 1);
}

TEST(GpuTrace, PacmlLogTakesTheDecisionsBetaAndStepsAndCountsMissingGraphFiles) {
  const std::string text =
      R"({"job_id": 7, "submit_time": 1000, "model": "resnet50", "steps": 10, "beta": 0.25})"
      "\n"
      R"({"job_id": null, "submit_time": 1001, "model": "x", "graph": "/nonexistent/x.txt",)"
      R"( "steps": 5, "beta": 1})"
      "\n"
      R"({"job_id": 8, "submit_time": 1002, "model": "resnet50", "outcome": "not_created"})"
      "\n";
  MappingReport report;
  try {
    map_text(text, sim::TraceFormat::kPacmlLog, TraceMapping(), report);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t:2: unreadable graph file '/nonexistent/x.txt'"),
              std::string::npos)
        << e.what();
  }
  TraceMapping skip;
  skip.unknown_model = "skip";
  report = MappingReport();
  const auto jobs = map_text(text, sim::TraceFormat::kPacmlLog, skip, report);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].iterations, 10);
  EXPECT_DOUBLE_EQ(jobs[0].deadline, 1000 + 0.25 * one_gpu(jobs[0], 10));
  EXPECT_EQ(report.records, 2);  // the job Slurm never created is the reader's skip
  EXPECT_EQ(report.skipped_by_reason.at("unreadable graph file '/nonexistent/x.txt'"), 1);
}

TEST(GpuTrace, SwfJobsTakeAModelByExecutableAndTheirTimeLimit) {
  // id submit wait run procs cpu mem req_procs req_time req_mem status uid gid exe queue
  // partition preceding think
  const std::string text =
      "; a comment\n"
      "1 0 0 100 4 -1 -1 4 600 -1 1 1 1 7 1 1 -1 -1\n"
      "2 10 0 50 2 -1 -1 2 -1 -1 1 1 1 7 1 1 -1 -1\n"
      "3 20 0 50 1 -1 -1 1 300 -1 1 1 1 9 1 1 -1 -1\n";
  MappingReport report;
  EXPECT_THROW(map_text(text, sim::TraceFormat::kSwf, TraceMapping(), report), InputError);
  TraceMapping mapping;
  mapping.models = {"resnet50", "vgg16", "gnmt"};
  report = MappingReport();
  const auto jobs = map_text(text, sim::TraceFormat::kSwf, mapping, report);
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].work->name(), jobs[1].work->name());  // the same executable
  EXPECT_EQ(jobs[0].requested, 4);
  EXPECT_EQ(jobs[0].deadline, 600);
  EXPECT_EQ(jobs[2].deadline, 320);
  EXPECT_EQ(jobs[0].iterations, 50);  // SWF has no iterations: --steps
  EXPECT_EQ(report.deadline_from.at("time limit"), 2);
  EXPECT_EQ(report.deadline_from.at("fallback beta A"), 1);
  EXPECT_EQ(report.steps_fallback, 3);
}

TEST(GpuTrace, FallbackBetaDrawsAreTheSameForTheSameSeed) {
  std::vector<sim::TraceRecord> records(20);
  for (int i = 0; i < 20; ++i) records[i].model = "resnet50", records[i].submit = i;
  TraceMapping mapping;
  MappingReport report;
  const auto a = jobs_from_trace(records, mapping, *estimator_4x8(), report);
  const auto b = jobs_from_trace(records, mapping, *estimator_4x8(), report);
  mapping.seed = 2;
  const auto c = jobs_from_trace(records, mapping, *estimator_4x8(), report);
  bool differs = false;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].deadline, b[i].deadline);
    differs |= a[i].deadline != c[i].deadline;
  }
  EXPECT_TRUE(differs);
}

TEST(GpuReplay, AStreamedReplayKeepsOnlyLiveJobsAndReportsEachOutcomeOnce) {
  // The EDF schedule above, fed one job at a time: the same statistics, and
  // the sink hears of each job once, when it is final (e at 40, then d at 60).
  const std::vector<Job> jobs = {job("a", 0, 20, 100, 8), job("d", 1, 60, 100, 1),
                                 job("e", 2, 40, 100, 1)};
  DurationModel durations(estimator_4x8());
  ReplayConfig config;
  config.policy = Policy::parse("min_feasible", "test");
  size_t next = 0;
  const JobSource source = [&](Job& j) {
    if (next == jobs.size()) return false;
    j = jobs[next++];
    return true;
  };
  std::vector<long> order;
  const ReplayStats streamed = replay_stream(
      source, durations, config, [&](long j, const JobOutcome&) { order.push_back(j); });
  EXPECT_EQ(order, (std::vector<long>{0, 2, 1}));
  const ReplayStats kept = replay_on_gpus(jobs, durations, config).stats;
  EXPECT_EQ(streamed.met, kept.met);
  EXPECT_DOUBLE_EQ(streamed.gpu_hours, kept.gpu_hours);
  EXPECT_DOUBLE_EQ(streamed.utilisation, kept.utilisation);
  EXPECT_DOUBLE_EQ(streamed.queue_delay_mean, kept.queue_delay_mean);
  EXPECT_DOUBLE_EQ(streamed.jct_mean, (20 + 59 + 38) / 3.0);
}

TEST(GpuReplay, AJobOutOfSubmissionOrderIsAnInputError) {
  EXPECT_THROW(
      run({job("a", 5, 30, 100, 1), job("b", 1, 30, 100, 1)}, "requested", Admission::kImmediate),
      InputError);
}

}  // namespace
}  // namespace pacml::gpu
