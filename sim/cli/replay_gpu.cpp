#include "sim/cli/replay_gpu.h"

#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/util/error.h"
#include "core/util/numbers.h"
#include "sim/cli/list_option.h"
#include "sim/cli/parallel_source.h"
#include "sim/cli/table.h"
#include "sim/experiment/summary.h"
#include "sim/gpu/gpu_trace.h"
#include "sim/workload/paths.h"

namespace pacml::cli {
namespace {

// A 95% confidence interval for one replay's deadline-met rate by batch
// means: the jobs in submission order are cut into kBatches consecutive
// batches, whose met rates are nearly independent samples (a trace has one
// run, so there are no seeds to average over).
constexpr int kBatches = 10;
sim::Stat met_rate_batch_means(const std::vector<sim::GpuJobOutcome>& jobs) {
  std::vector<double> rates;
  const size_t n = jobs.size();
  if (n < static_cast<size_t>(kBatches)) return {};
  for (int b = 0; b < kBatches; ++b) {
    const size_t begin = n * b / kBatches, end = n * (b + 1) / kBatches;
    long met = 0;
    for (size_t j = begin; j < end; ++j) met += jobs[j].met;
    rates.push_back(static_cast<double>(met) / static_cast<double>(end - begin));
  }
  return sim::summarize_values(rates);
}

nlohmann::json stats_json(const sim::GpuReplayStats& s, const sim::Stat& met,
                          const std::string& cluster) {
  return {{"policy", s.policy},
          {"admission", s.admission},
          {"cluster", cluster},
          {"seeds", 1},
          {"arrived", s.arrived},
          {"started", s.started},
          {"met", s.met},
          {"deadline_met_rate_mean", s.deadline_met_rate},
          {"deadline_met_rate_ci95", met.ci95},
          {"blocking_rate_mean", s.blocking_rate},
          {"unservable_rate_mean", s.unservable_rate},
          {"gpu_hours_mean", s.gpu_hours},
          {"gpu_hours_per_met_mean", s.gpu_hours_per_met},
          {"utilisation_mean", s.utilisation},
          {"queue_delay_mean", s.queue_delay_mean},
          {"mean_gpus", s.mean_gpus}};
}

nlohmann::json report_json(const std::string& path, const sim::TraceReport& read,
                           const sim::GpuTraceReport& mapped) {
  nlohmann::json skipped = nlohmann::json::object();
  for (const auto& [reason, n] : read.skipped_by_reason) skipped[reason] = n;
  for (const auto& [reason, n] : mapped.skipped_by_reason) skipped[reason] = n;
  return {{"path", path},
          {"lines", read.lines},
          {"records", read.records},
          {"jobs", mapped.jobs},
          {"skipped", read.skipped + mapped.skipped},
          {"skipped_by_reason", skipped},
          {"jobs_by_model", mapped.jobs_by_model}};
}

}  // namespace

void add_gpu_replay_options(Args& args) {
  args.option("cluster", "FILE|NAME",
              "replay on this GPU cluster with the physical model (contrib/clusters/*.yaml or a "
              "preset: dgx-a100-4x8, dgx-a100-16x8, ramp-a100-16x8, ...); policies are then "
              "requested, min_feasible, para_max, fixed:K, random, capped:X or pacml:MODEL (the "
              "learned GPU policy, pacml:default)");
  args.option("throughput-table", "DIR",
              "with --cluster: measured iterations/s per model (ElasticFlow's MODEL.csv format)");
  args.option("admission", "MODE",
              "with --cluster: immediate (start or block), queue (wait; as Slurm), or both",
              "queue");
  args.option("order", "ORDER", "with --cluster, queue admission: edf or fifo", "edf");
  args.option("decide", "WHEN",
              "with --cluster, queue admission: a waiting job's GPU count is chosen at its start, "
              "or once at submission as the Slurm plugin does (doc/SLURM.md §10)",
              "start");
}

int replay_on_gpu_cluster(const Args& args) {
  if (args.get("format") != "elasticflow")
    throw InputError("--format", "--cluster replays ElasticFlow traces (model, batch, iterations)");
  for (const char* paper_only : {"experiment", "topology", "map", "models", "beta-rule",
                                 "steps-rule", "time-scale", "gpu-scale", "horizon"})
    if (args.has(paper_only))
      throw InputError(std::string("--") + paper_only,
                       "applies to the paper's RAMP replay, not to --cluster");
  const std::string path = args.positionals()[0];
  sim::TraceReadOptions read_options;
  read_options.skip_bad = args.is_set("skip-bad-lines");
  sim::TraceReport read;
  std::vector<sim::TraceRecord> records =
      sim::read_trace_file(path, sim::TraceFormat::kElasticFlow, read_options, read);
  if (args.has("max-jobs")) {
    const long max = args.get_long("max-jobs", 0, 1L << 40);
    if (static_cast<long>(records.size()) > max) records.resize(max);
  }
  sim::GpuTraceReport mapped;
  const std::vector<sim::GpuJob> jobs = sim::gpu_jobs_from_trace(records, mapped);
  auto estimator = std::make_shared<const PhysicalEstimator>(load_physical_estimator(args));
  DurationModel durations(estimator);
  std::vector<sim::Admission> modes;
  const std::string admission = args.get("admission");
  if (admission == "both")
    modes = {sim::Admission::kImmediate, sim::Admission::kQueue};
  else
    modes = {sim::parse_admission(admission, "--admission")};
  const std::vector<std::string> policies =
      split_list(args.has("policies") ? args.get("policies") : "requested,min_feasible,para_max");
  sim::GpuReplayConfig config;
  config.order = sim::parse_queue_order(args.get("order"), "--order");
  config.decide = sim::parse_gpu_decision(args.get("decide"), "--decide");
  nlohmann::json summary = nlohmann::json::array();
  Table table({"policy", "admission", "deadlines met", "95% CI", "unservable", "blocked",
               "GPU-hours", "GPU-h/met", "utilisation", "queue delay s", "GPUs/job"});
  for (sim::Admission mode : modes)
    for (const std::string& name : policies) {
      config.policy = GpuPolicy::parse(name, "--policies", sim::model_search_dirs());
      config.admission = mode;
      const sim::GpuReplayResult result = sim::replay_on_gpus(jobs, durations, config);
      const sim::GpuReplayStats& s = result.stats;
      const sim::Stat met = met_rate_batch_means(result.jobs);
      summary.push_back(stats_json(s, met, estimator->cluster().name));
      table.add({s.policy, s.admission, significant_number_text(s.deadline_met_rate, 4),
                 "± " + significant_number_text(met.ci95, 2),
                 significant_number_text(s.unservable_rate, 4),
                 significant_number_text(s.blocking_rate, 4),
                 significant_number_text(s.gpu_hours, 6),
                 significant_number_text(s.gpu_hours_per_met, 4),
                 significant_number_text(s.utilisation, 3),
                 significant_number_text(s.queue_delay_mean, 5),
                 significant_number_text(s.mean_gpus, 3)});
    }
  const nlohmann::json trace = report_json(path, read, mapped);
  if (args.is_set("json")) {
    std::cout << nlohmann::json{{"trace", trace}, {"summary", summary}}.dump(2) << "\n";
    return 0;
  }
  std::cout << path << ": " << mapped.jobs << " jobs on " << estimator->cluster().summary() << " ("
            << read.skipped + mapped.skipped << " skipped), physical model\n";
  table.print(std::cout);
  std::cout << "95% CI: batch means over " << kBatches
            << " consecutive batches of the trace's jobs (sim/README.md)\n";
  return 0;
}

}  // namespace pacml::cli
