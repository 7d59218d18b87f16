#include "sim/engine/environment.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <thread>

#include "core/placement/action_mask.h"
#include "core/util/error.h"
#include "sim/engine/episode.h"
#include "sim/engine/policy_factory.h"
#include "sim/report/csv.h"
#include "sim/workload/synthetic.h"
#include "tests/sim/sim_test_util.h"

namespace pacml::sim {
namespace {

using pacml::testing::ListWorkload;

std::shared_ptr<JctEstimator> reference_estimator(const std::string& shape = "4x4x2") {
  return std::make_shared<JctEstimator>(RampTopology::parse(shape), Profile::reference(), 50);
}

EnvironmentConfig paper_config(const std::vector<JobGraphPtr>& graphs,
                               const std::string& beta = "A") {
  SyntheticOptions o;
  o.graphs = graphs;
  o.beta = BetaSpec::parse(beta);
  EnvironmentConfig c;
  c.estimator = reference_estimator();
  c.workload = std::make_shared<SyntheticWorkload>(o);
  return c;
}

std::string jobs_csv(const EpisodeResult& r) {
  std::ostringstream out;
  write_jobs_csv_header(out);
  write_jobs_csv_rows(out, r.stats, r.jobs);
  write_timeline_csv_rows(out, r.stats, r.timeline);
  return out.str();
}

// doc/MODEL.md §7: first arrival 0, interarrival 1000, horizon 1e6 → 1001
// arrivals, 1000 decisions, the arrival at the horizon counted, never decided.
TEST(Environment, PaperEpisodeCountsArrivalsAndDecisionsExactly) {
  GraphCatalog catalog;
  std::vector<JobGraphPtr> graphs = pacml::testing::paper_graphs(catalog);
  if (graphs.empty()) graphs = pacml::testing::zoo_graphs(catalog);
  Environment env(paper_config(graphs));
  PolicyPtr policy = make_policy("para_max");
  EpisodeResult r = run_episode(env, *policy, 0);
  const EpisodeStats& s = r.stats;
  EXPECT_EQ(s.arrived, 1001);
  EXPECT_EQ(s.decisions, 1000);
  EXPECT_EQ(s.undecided, 1);
  EXPECT_EQ(r.jobs.back().arrival, 1e6);
  EXPECT_EQ(r.jobs.back().outcome, JobOutcome::kUndecided);
  EXPECT_EQ(s.completed + s.blocked + s.undecided, s.arrived);
  EXPECT_EQ(s.blocked, s.declined + s.no_placement + s.deadline + s.running_at_horizon);
  EXPECT_EQ(s.accepted, s.completed + s.running_at_horizon);
  EXPECT_DOUBLE_EQ(s.blocking_rate, static_cast<double>(s.blocked) / 1001);
  EXPECT_EQ(s.end_time, 1e6);
  EXPECT_GT(s.throughput, 0);
}

// The paper reports ≈ 0.26 blocking for maximum parallelism (doc/LEARNING.md §6).
TEST(Environment, ParaMaxOnThePaperSetUpBlocksAboutAQuarter) {
  GraphCatalog catalog;
  std::vector<JobGraphPtr> graphs = pacml::testing::paper_graphs(catalog);
  if (graphs.empty())
    GTEST_SKIP() << "shared data absent: ../shared/data/pipedream (set PACML_SHARED_DATA)";
  Environment env(paper_config(graphs));
  PolicyPtr policy = make_policy("para_max");
  const EpisodeResult r = run_episode(env, *policy, 3);
  EXPECT_GT(r.stats.blocking_rate, 0.2);
  EXPECT_LT(r.stats.blocking_rate, 0.32);
}

TEST(Environment, SameConfigAndSeedGiveByteIdenticalCsv) {
  GraphCatalog catalog;
  const std::vector<JobGraphPtr> graphs = pacml::testing::zoo_graphs(catalog);
  for (const char* policy_name : {"random", "para_min"}) {
    Environment a(paper_config(graphs, "B")), b(paper_config(graphs, "B"));
    PolicyPtr p1 = make_policy(policy_name), p2 = make_policy(policy_name);
    const std::string first = jobs_csv(run_episode(a, *p1, 11));
    const std::string second = jobs_csv(run_episode(b, *p2, 11));
    EXPECT_EQ(first, second) << policy_name;
    // Reusing an environment (and a policy) for the same seed gives the same bytes too.
    EXPECT_EQ(jobs_csv(run_episode(a, *p1, 11)), first) << policy_name;
    EXPECT_NE(jobs_csv(run_episode(a, *p1, 12)), first) << policy_name;
  }
}

bool accepted(const JobRecord& j) {
  return j.outcome == JobOutcome::kCompleted || j.outcome == JobOutcome::kRunningAtHorizon;
}

// Invariants on random workloads: no server ever holds two jobs, occupancy
// never exceeds the cluster, every arrived job ends in exactly one outcome.
TEST(Environment, InvariantsHoldOnRandomWorkloads) {
  GraphCatalog catalog;
  const std::vector<JobGraphPtr> graphs = pacml::testing::zoo_graphs(catalog);
  int checked = 0;
  for (const char* shape : {"4x4x2", "2x2x4", "3x2x2"}) {
    for (std::uint64_t seed = 0; seed < 4; ++seed) {
      SyntheticOptions o;
      o.graphs = graphs;
      o.beta = BetaSpec::parse(seed % 2 ? "uniform(0.1,1)" : "C");
      o.exponential = true;
      o.interarrival = 300 + 200 * seed;
      EnvironmentConfig c;
      c.estimator = reference_estimator(shape);
      c.workload = std::make_shared<SyntheticWorkload>(o);
      c.horizon = 2e5;
      Environment env(c);
      PolicyPtr policy = make_policy(seed % 2 ? "random" : "para_max");
      env.reset(seed);
      const int servers = env.cluster().num_servers();
      while (!env.done()) {
        const Observation& obs = env.observe();
        ASSERT_NE(obs.job, nullptr);
        ASSERT_TRUE(obs.mask[0]);
        EXPECT_EQ(obs.mask, action_mask(env.cluster(), 16));
        env.step(env.choose(*policy));
        // Servers of running jobs are disjoint and owned by their job.
        std::set<int> used;
        for (const auto& [id, job] : env.running()) {
          EXPECT_GT(job.end, env.time());
          for (int s : job.servers) {
            EXPECT_TRUE(used.insert(s).second) << "server " << s << " holds two jobs";
            EXPECT_EQ(env.cluster().owner(s), id);
          }
        }
        EXPECT_EQ(static_cast<int>(used.size()), env.cluster().occupied_servers());
        EXPECT_LE(env.cluster().occupied_servers(), servers);
        ++checked;
      }
      const EpisodeResult& r = env.result();
      // The timeline agrees with the job records: it has a sample at every
      // start and every completion, and at each sample time t it holds the
      // accepted jobs with start <= t < end and the servers they hold.
      ASSERT_GT(r.timeline.size(), 2u);
      std::set<double> times;
      for (const OccupancySample& s : r.timeline) times.insert(s.time);
      for (const JobRecord& j : r.jobs) {
        if (accepted(j)) {
          EXPECT_EQ(times.count(j.start), 1u) << "start of job " << j.index;
        }
        if (j.outcome == JobOutcome::kCompleted) {
          EXPECT_EQ(times.count(j.end), 1u) << "end of job " << j.index;
        }
      }
      for (size_t i = 0; i < r.timeline.size(); ++i) {
        const OccupancySample& s = r.timeline[i];
        if (i > 0) {
          EXPECT_GT(s.time, r.timeline[i - 1].time);
        }
        int occupied = 0, running = 0;
        for (const JobRecord& j : r.jobs)
          if (accepted(j) && j.start <= s.time && s.time < j.end) occupied += j.servers, ++running;
        EXPECT_EQ(s.occupied, occupied) << "t = " << s.time;
        EXPECT_EQ(s.running, running) << "t = " << s.time;
        EXPECT_LE(s.occupied, servers);
      }
      long outcomes[6] = {};
      for (const JobRecord& j : r.jobs) {
        outcomes[static_cast<int>(j.outcome)]++;
        if (j.outcome == JobOutcome::kCompleted) {
          EXPECT_LE(j.end, r.stats.end_time);
        }
        if (j.outcome == JobOutcome::kRunningAtHorizon) {
          EXPECT_GT(j.end, r.stats.end_time);
        }
        if (j.outcome == JobOutcome::kDeclined) {
          EXPECT_EQ(j.action, 0);
        }
      }
      EXPECT_EQ(outcomes[0] + outcomes[1] + outcomes[2] + outcomes[3] + outcomes[4] + outcomes[5],
                r.stats.arrived);
      EXPECT_EQ(r.stats.completed, outcomes[0]);
      EXPECT_EQ(r.stats.running_at_horizon, outcomes[1]);
      EXPECT_EQ(r.stats.declined, outcomes[2]);
      EXPECT_EQ(r.stats.no_placement, outcomes[3]);
      EXPECT_EQ(r.stats.deadline, outcomes[4]);
      EXPECT_EQ(r.stats.undecided, outcomes[5]);
    }
  }
  EXPECT_GT(checked, 1000);
}

// Completions at t are applied before the arrival at t is decided; a job that
// ends exactly at the horizon completes; one that runs past it is blocked.
TEST(Environment, CompletionsBeforeArrivalsAndHorizonRules) {
  GraphCatalog catalog;
  JobGraphPtr g = catalog.by_name("alexnet", "test");
  auto est = std::make_shared<JctEstimator>(RampTopology::parse("1x1x1"), Profile::reference(), 50);
  const double jct = est->sequential_jct(*g);  // a = 1 on one server
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 3; ++i) {
    JobSpec s;
    s.graph = g;
    s.beta = 1.0;
    s.arrival = i * jct;  // each arrives exactly when the previous one ends
    jobs.push_back(s);
  }
  EnvironmentConfig c;
  c.estimator = est;
  c.workload = std::make_shared<ListWorkload>(jobs);
  c.horizon = 2.5 * jct;
  Environment env(c);
  env.reset(0);
  for (int i = 0; i < 3; ++i) {
    ASSERT_FALSE(env.done());
    EXPECT_TRUE(env.observe().mask[1]) << "server not released before arrival " << i;
    const StepResult r = env.step(1);
    EXPECT_EQ(r.reward, 1);
  }
  ASSERT_TRUE(env.done());
  const EpisodeStats& s = env.result().stats;
  EXPECT_EQ(s.completed, 2);
  EXPECT_EQ(s.running_at_horizon, 1);
  EXPECT_NEAR(env.result().jobs[2].done_fraction, 0.5, 1e-9);

  // Horizon exactly at the third arrival: it is counted, never decided.
  c.horizon = 2 * jct;
  Environment env2(c);
  env2.reset(0);
  env2.step(1);
  env2.step(1);
  ASSERT_TRUE(env2.done());
  EXPECT_EQ(env2.result().stats.arrived, 3);
  EXPECT_EQ(env2.result().stats.decisions, 2);
  EXPECT_EQ(env2.result().stats.undecided, 1);
  EXPECT_EQ(env2.result().stats.completed, 2);  // the second ends exactly at the horizon
}

TEST(Environment, RejectsMaskedActionsAndStepsAfterDone) {
  GraphCatalog catalog;
  Environment env(paper_config(pacml::testing::zoo_graphs(catalog)));
  env.reset(0);
  EXPECT_THROW(env.step(3), InputError);   // odd action
  EXPECT_THROW(env.step(17), InputError);  // out of range
  EXPECT_THROW(env.step(-1), InputError);
  const StepResult r = env.step(0);
  EXPECT_EQ(r.reward, -1);
  EXPECT_EQ(r.outcome, JobOutcome::kDeclined);
  while (!env.done()) env.step(0);
  EXPECT_THROW(env.step(0), InputError);
  EXPECT_EQ(env.result().stats.declined, 1000);
}

TEST(Environment, ParallelEpisodesMatchSerialOnes) {
  GraphCatalog catalog;
  const EnvironmentConfig c = paper_config(pacml::testing::zoo_graphs(catalog), "D");
  std::vector<EpisodeTask> tasks;
  for (const char* p : {"para_max", "random", "fixed:4"})
    for (std::uint64_t seed = 0; seed < 3; ++seed) tasks.push_back({c, p, seed});
  const std::vector<EpisodeResult> serial = run_episodes(tasks, 1);
  const std::vector<EpisodeResult> parallel = run_episodes(tasks, 4);
  ASSERT_EQ(serial.size(), parallel.size());
  for (size_t i = 0; i < serial.size(); ++i)
    EXPECT_EQ(jobs_csv(serial[i]), jobs_csv(parallel[i])) << i;
}

TEST(Environment, PerJobStepsScaleTheJct) {
  GraphCatalog catalog;
  JobGraphPtr g = catalog.by_name("vgg16", "test");
  auto est = reference_estimator();
  JobSpec a;
  a.graph = g;
  a.steps = 50;
  JobSpec b = a;
  b.steps = 100;
  b.arrival = 1e9;
  EnvironmentConfig c;
  c.estimator = est;
  c.workload = std::make_shared<ListWorkload>(std::vector<JobSpec>{a, b});
  c.horizon = kInfiniteHorizon;
  Environment env(c);
  env.reset(0);
  env.step(4);
  env.step(4);
  ASSERT_TRUE(env.done());
  const auto& jobs = env.result().jobs;
  EXPECT_NEAR(jobs[1].jct, 2 * jobs[0].jct, 1e-9 * jobs[1].jct);
  EXPECT_EQ(env.result().stats.completed, 2);
  EXPECT_EQ(env.result().stats.end_time, jobs[1].end);
}

TEST(PolicyFactory, BaselinesAndRegisteredPrefixes) {
  EXPECT_EQ(make_policy("fixed:4")->name(), "fixed:4");
  EXPECT_THROW(make_policy("nope"), InputError);
  EXPECT_THROW(make_policy("pacml:/no/such/model"), InputError);
  register_policy_maker("test-seq:", [](const std::string&, const std::string&) {
    return make_policy("sequential");
  });
  EXPECT_EQ(make_policy("test-seq:anything")->name(), "sequential");
  EXPECT_EQ(split_policy_list("para_max, fixed:2", "x"),
            (std::vector<std::string>{"para_max", "fixed:2"}));
  EXPECT_THROW(split_policy_list("para_max,,x", "x"), InputError);
}

}  // namespace
}  // namespace pacml::sim
