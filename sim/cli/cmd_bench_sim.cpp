// pacml bench-sim: simulator speed — the paper episode cold and warm, a
// large trace replay on a 512-server RAMP, and the GPU replay (sim/gpu): the
// ElasticFlow traces on 128 GPUs and a million generated jobs on 1,024.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>

#include "core/cluster/cluster_spec.h"
#include "core/parallel/duration_model.h"
#include "core/util/args.h"
#include "core/util/error.h"
#include "sim/calibration/elasticflow_archive.h"
#include "sim/cli/command.h"
#include "sim/cli/cpu_timer.h"
#include "sim/cli/list_option.h"
#include "sim/engine/episode.h"
#include "sim/engine/policy_factory.h"
#include "sim/gpu/fitted_workload.h"
#include "sim/gpu/trace.h"
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

// The options, which CLI11 fills (run_bench_sim).
struct BenchSimOptions {
  std::string only = "paper,ramp,traces,generated";
  long episodes = 3;
  std::string policy = "para_max";
  std::string scale_policy = "para_min";
  long ramp_jobs = 100000;
  std::string topology = "8x8x8";
  long jobs = 1000000;
  double load = 8;
  std::string gpu_policy = "min_feasible";
  gpu::Admission admission = gpu::Admission::kQueue;
  bool skip_scale = false;
};

void bench_paper_episode(const BenchSimOptions& o) {
  const std::string& policy_name = o.policy;
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
  const long episodes = o.episodes;
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
}

// An ElasticFlow-like trace (model mix, GPU counts, deadlines) of N jobs on a
// large RAMP cluster, in the paper's simulator.
void bench_ramp_trace(const BenchSimOptions& o) {
  sim::GraphCatalog catalog;
  const long jobs = o.ramp_jobs;
  const RampTopology topology = RampTopology::parse(o.topology, "--topology");
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
  const std::string& scale_policy = o.scale_policy;
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
}

// Peak resident memory of the process so far (getrusage), in MB.
double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024;  // Linux: kilobytes
}

// Wall and CPU time of one replay, and the process's peak RSS after it.
struct Timing {
  Clock::time_point wall = Clock::now();
  double cpu = cpu_seconds();
  void print(const char* what) const {
    std::printf("  %s: wall %.2f s, CPU %.2f s, peak RSS %.0f MB\n", what, seconds_since(wall),
                cpu_seconds() - cpu, peak_rss_mb());
  }
};

gpu::ReplayConfig gpu_config(const BenchSimOptions& o) {
  gpu::ReplayConfig config;
  config.policy = gpu::Policy::parse(o.gpu_policy, "--gpu-policy", sim::model_search_dirs());
  config.admission = o.admission;
  return config;
}

void print_gpu_stats(const gpu::ReplayStats& s) {
  std::printf(
      "  deadlines met %.4f, unservable %.4f, utilisation %.3f, mean queueing delay %.0f s, "
      "%.2f GPUs/job\n",
      s.deadline_met_rate, s.unservable_rate, s.utilisation, s.queue_delay_mean, s.mean_gpus);
}

// Every ElasticFlow trace (../shared/data) merged into one stream on 128 GPUs.
void bench_gpu_traces(const BenchSimOptions& o) {
  const sim::ElasticFlowTraces traces = sim::find_elasticflow_traces("");
  if (!traces.found) {
    std::cout << "ElasticFlow traces: skipped (" << traces.note << ")\n";
    return;
  }
  const Timing timing;
  gpu::MappingReport report;
  auto estimator = std::make_shared<const PhysicalEstimator>(load_cluster("ramp-a100-16x8"));
  gpu::TraceMapping mapping;
  mapping.unknown_model = "skip";  // counted in the report
  const std::vector<gpu::Job> jobs =
      gpu::jobs_from_trace(traces.records, mapping, *estimator, report);
  DurationModel durations(estimator);
  const gpu::ReplayConfig config = gpu_config(o);
  std::printf(
      "ElasticFlow traces: %ld jobs (%ld skipped) from %s on %s, %s, %s admission, 1 "
      "thread\n",
      report.jobs, report.skipped, traces.path.c_str(), estimator->cluster().summary().c_str(),
      config.policy.name.c_str(), gpu::admission_name(config.admission));
  const gpu::ReplayStats stats = gpu::replay_on_gpus(jobs, durations, config).stats;
  timing.print("read, map and replay");
  print_gpu_stats(stats);
}

// The 128-GPU ramp-a100-16x8 preset grown to 128 servers (1,024 GPUs).
ClusterSpec thousand_gpu_cluster() {
  ClusterSpec cluster = load_cluster("ramp-a100-16x8");
  cluster.name = "ramp-a100-128x8";
  cluster.ramp.groups = 8, cluster.ramp.racks = 8, cluster.ramp.servers_per_rack = 2;
  return cluster;
}

// --jobs jobs drawn from the built-in fitted workload, streamed through the
// replay: memory stays that of the jobs running and waiting at once.
void bench_gpu_generated(const BenchSimOptions& o) {
  const long jobs = o.jobs;
  const double load = o.load;
  const gpu::FittedWorkload workload = gpu::load_workload_named("elasticflow-01-05");
  auto estimator = std::make_shared<const PhysicalEstimator>(thousand_gpu_cluster());
  DurationModel durations(estimator);
  const gpu::ReplayConfig config = gpu_config(o);
  std::printf(
      "generated: %ld jobs from elasticflow-01-05 at load %g on %s, %s, %s admission, 1 "
      "thread\n",
      jobs, load, estimator->cluster().summary().c_str(), config.policy.name.c_str(),
      gpu::admission_name(config.admission));
  const Timing timing;
  gpu::FittedJobGenerator generator(workload, load, 1, durations);
  long drawn = 0;
  double last_submit = 0;
  const gpu::JobSource source = [&](gpu::Job& job) {
    if (drawn == jobs) return false;
    // The peak RSS a tenth of the way in: equal to the end's when memory is flat.
    if (jobs >= 10 && ++drawn == jobs / 10) timing.print("first 10% of the jobs");
    if (jobs < 10) ++drawn;
    job = generator.next();
    last_submit = job.submit;
    return true;
  };
  const gpu::ReplayStats stats = gpu::replay_stream(source, durations, config);
  timing.print("draw and replay");
  std::printf("  %.1f simulated days, %.0f jobs per CPU second\n", last_submit / 86400,
              jobs / std::max(1e-9, cpu_seconds() - timing.cpu));
  print_gpu_stats(stats);
}

int run_bench_sim(const std::vector<std::string>& argv) {
  Args args(
      "pacml bench-sim [--only paper,ramp,traces,generated] [--jobs N] [--episodes N] "
      "[--ramp-jobs N] [--topology CxRxS]",
      "Measures the simulator, one thread: (paper) one paper episode (reference profile, 4x4x2, "
      "the five PipeDream graphs, β A, interarrival 1000, horizon 1e6, para_max) from a cold "
      "start and again with warm lookahead caches; (ramp) a synthetic ElasticFlow-like trace of "
      "--ramp-jobs jobs on a large RAMP (physical profile, zoo graphs); (traces) the GPU replay "
      "of all ten ElasticFlow traces (../shared/data) on 128 GPUs (ramp-a100-16x8); (generated) "
      "--jobs jobs drawn from the fitted workload elasticflow-01-05 streamed through the GPU "
      "replay on 1,024 GPUs. Prints wall and CPU seconds and the peak RSS.");
  BenchSimOptions o;
  args.bind("only", "LIST", "benchmarks to run: paper, ramp, traces, generated", o.only)
      .bind("episodes", "N", "paper episodes to time (seeds 0..N-1)", o.episodes, 1, 1000)
      .bind("policy", "P", "policy of the paper episode", o.policy)
      .bind("scale-policy", "P", "policy of the RAMP trace benchmark", o.scale_policy)
      .bind("ramp-jobs", "N", "jobs in the RAMP trace benchmark", o.ramp_jobs, 1, 10000000)
      .bind("topology", "CxRxS", "topology of the RAMP trace benchmark", o.topology)
      .bind("jobs", "N", "generated jobs in the 1,024-GPU benchmark", o.jobs, 1, 1'000'000'000)
      .bind("load", "X",
            "their arrival rate, × the fitted workload's (8: the default experiment's load per "
            "GPU)",
            o.load)
      .bind("gpu-policy", "P", "GPU policy of the GPU replays", o.gpu_policy)
      .bind_parsed("admission", "MODE", "admission of the GPU replays: immediate or queue",
                   o.admission, gpu::parse_admission, "queue")
      .bind_flag("skip-scale", "run only the paper episode (as --only paper)", o.skip_scale);
  if (!args.parse(argv)) return 0;
  std::vector<std::string> only = split_list(o.only);
  if (o.skip_scale) only = {"paper"};
  for (const std::string& name : only)
    if (name != "paper" && name != "ramp" && name != "traces" && name != "generated")
      throw InputError("--only",
                       "unknown benchmark '" + name + "' (known: paper, ramp, traces, generated)");
  auto wanted = [&](const char* name) {
    return std::find(only.begin(), only.end(), name) != only.end();
  };
  if (wanted("paper")) bench_paper_episode(o);
  if (wanted("ramp")) bench_ramp_trace(o);
  if (wanted("traces")) bench_gpu_traces(o);
  if (wanted("generated")) bench_gpu_generated(o);
  return 0;
}

}  // namespace

PACML_COMMAND("bench-sim", "measure simulator speed (paper episode cold/warm, large trace replay)",
              run_bench_sim);

}  // namespace pacml::cli
