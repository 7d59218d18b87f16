// pacml bench-sim: simulator speed — the paper episode cold and warm, and a
// large trace replay on a 512-server RAMP.
#include <chrono>
#include <cstdlib>
#include <iostream>

#include "core/util/error.h"
#include "sim/cli/args.h"
#include "sim/cli/command.h"
#include "sim/engine/episode.h"
#include "sim/engine/policy_factory.h"
#include "sim/trace/trace_workload.h"
#include "sim/workload/graph_catalog.h"
#include "sim/workload/paths.h"
#include "sim/workload/synthetic.h"

namespace pacml::cli {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The five paper graphs from PACML_SHARED_DATA or ../shared/data (searched
// upwards from the current directory); empty if absent.
std::vector<JobGraphPtr> paper_graphs(sim::GraphCatalog& catalog, std::string& where) {
  const char* env = std::getenv("PACML_SHARED_DATA");
  const std::string dir =
      env && *env ? std::string(env) : sim::resolve_path("../shared/data", ".", "data");
  std::vector<JobGraphPtr> out;
  for (const char* m : {"alexnet", "resnet18", "squeezenet1_0", "vgg16", "gnmt"}) {
    const std::string path = dir + "/pipedream/" + m + ".txt";
    if (!sim::file_exists(path)) return {};
    out.push_back(catalog.load_file(path));
  }
  where = dir + "/pipedream";
  return out;
}

int run_bench_sim(const std::vector<std::string>& argv) {
  Args args(
      "pacml bench-sim [--episodes N] [--jobs N] [--topology CxRxS] [--skip-scale]",
      "Measures the simulator: (1) one paper episode (reference profile, 4x4x2, the five PipeDream "
      "graphs, β A, interarrival 1000, horizon 1e6, para_max) from a cold start and again with "
      "warm "
      "lookahead caches, single thread; (2) a synthetic ElasticFlow-like trace of --jobs jobs "
      "replayed "
      "with para_max on a large RAMP (physical profile, zoo graphs).");
  args.option("episodes", "N", "paper episodes to time (seeds 0..N-1)", "3")
      .option("policy", "P", "policy of the paper episode", "para_max")
      .option("scale-policy", "P", "policy of the scale benchmark", "para_min")
      .option("jobs", "N", "jobs in the scale benchmark", "100000")
      .option("topology", "CxRxS", "topology of the scale benchmark", "8x8x8")
      .flag("skip-scale", "run only the paper episode");
  if (!args.parse(argv)) return 0;
  const std::string policy_name = args.get("policy");
  sim::check_policy_name(policy_name, "--policy");
  sim::GraphCatalog catalog;
  std::string where;
  std::vector<JobGraphPtr> graphs = paper_graphs(catalog, where);
  if (graphs.empty()) {
    std::cout << "note: ../shared/data/pipedream not found (set PACML_SHARED_DATA); using zoo "
                 "graphs of the same "
                 "names instead, so the figures are not the paper's\n";
    for (const char* m : {"alexnet", "resnet18", "squeezenet1_0", "vgg16", "gnmt"})
      graphs.push_back(catalog.by_name(m, "bench-sim"));
    where = "model zoo";
  }
  sim::SyntheticOptions options;
  options.graphs = graphs;
  sim::EnvironmentConfig config;
  config.estimator =
      std::make_shared<JctEstimator>(RampTopology::parse("4x4x2"), Profile::reference(), 50);
  config.workload = std::make_shared<sim::SyntheticWorkload>(options);
  config.horizon = 1e6;
  config.record_timeline = false;
  config.policy_label = policy_name;
  const long episodes = args.get_long("episodes", 1, 1000);
  std::cout << "paper episode: reference profile, 4x4x2, graphs from " << where << ", "
            << policy_name << ", 1 thread\n";
  for (long seed = 0; seed < episodes; ++seed) {
    PolicyPtr policy = sim::make_policy(policy_name);
    sim::EnvironmentConfig cold_config = config;
    sim::Environment cold(cold_config);
    auto t = Clock::now();
    sim::EpisodeResult r = sim::run_episode(cold, *policy, seed);
    const double cold_s = seconds_since(t);
    cold_config.keep_cache_across_resets = true;
    sim::Environment warm(cold_config);
    sim::run_episode(warm, *policy, seed);  // fills the cache
    t = Clock::now();
    sim::EpisodeResult w = sim::run_episode(warm, *policy, seed);
    const double warm_s = seconds_since(t);
    std::printf(
        "  seed %ld: %ld decisions, blocking %.4f | cold %.3f s (%.0f decisions/s, %ld lookaheads, "
        "%ld "
        "cache hits) | warm %.3f s (%.0f decisions/s)\n",
        seed, r.stats.decisions, r.stats.blocking_rate, cold_s, r.stats.decisions / cold_s,
        r.stats.lookaheads, r.stats.cache_hits, warm_s, w.stats.decisions / warm_s);
  }
  if (args.is_set("skip-scale")) return 0;

  // Scale: an ElasticFlow-like trace (model mix, GPU counts, deadlines) of N jobs.
  const long jobs = args.get_long("jobs", 1, 10000000);
  const RampTopology topology = RampTopology::parse(args.get("topology"), "--topology");
  auto t = Clock::now();
  std::vector<sim::TraceRecord> records;
  Rng rng(12345);
  const char* models[] = {"resnet50", "vgg16", "bert", "inception3", "deepspeech2", "gpt2"};
  const int gpus[] = {1, 1, 1, 1, 1, 1, 1, 2, 4, 8};
  double submit = 0;
  for (long i = 0; i < jobs; ++i) {
    sim::TraceRecord rec;
    rec.id = std::to_string(i);
    rec.source = "synthetic:" + std::to_string(i + 1);
    submit += -2.0 * std::log(1.0 - rng.uniform());
    rec.submit = submit;
    rec.model = models[rng.below(6)];
    rec.gpus = gpus[rng.below(10)];
    rec.duration = 60 + 600 * rng.uniform();
    rec.deadline = rec.submit + rec.duration * (0.5 + rng.uniform());
    rec.iterations = 50 + static_cast<long>(rng.below(500));
    records.push_back(rec);
  }
  sim::TraceMapping mapping;
  auto estimator = std::make_shared<JctEstimator>(topology, Profile::physical(), 50);
  auto workload =
      std::make_shared<sim::TraceWorkload>(std::move(records), mapping, catalog, *estimator,
                                           sim::BetaSpec::parse("A"), "synthetic-elasticflow");
  const double build_s = seconds_since(t);
  sim::EnvironmentConfig scale;
  scale.estimator = estimator;
  scale.workload = workload;
  scale.horizon = sim::kInfiniteHorizon;
  scale.shared_cache = std::make_shared<LookaheadCache>();
  scale.record_timeline = false;
  scale.record_jobs = false;
  scale.policy_label = policy_name;
  const std::string scale_policy = args.get("scale-policy");
  sim::check_policy_name(scale_policy, "--scale-policy");
  scale.policy_label = scale_policy;
  PolicyPtr policy = sim::make_policy(scale_policy);
  sim::Environment env(scale);
  t = Clock::now();
  sim::EpisodeResult r = sim::run_episode(env, *policy, 0);
  const double run_s = seconds_since(t);
  std::printf(
      "scale: %s (%d servers), physical profile, %ld-job ElasticFlow-like trace, %s, 1 thread\n",
      topology.shape().c_str(), topology.num_servers(), jobs, scale_policy.c_str());
  std::printf(
      "  trace mapping %.2f s; replay %.2f s (%.0f decisions/s), blocking %.4f, %ld lookaheads, "
      "%ld "
      "cache hits; total %.2f s\n",
      build_s, run_s, r.stats.decisions / run_s, r.stats.blocking_rate, r.stats.lookaheads,
      r.stats.cache_hits, build_s + run_s);
  return 0;
}

}  // namespace

PACML_COMMAND("bench-sim", "measure simulator speed (paper episode cold/warm, large trace replay)",
              run_bench_sim);

}  // namespace pacml::cli
