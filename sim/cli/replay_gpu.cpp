#include "sim/cli/replay_gpu.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "core/util/error.h"
#include "core/util/numbers.h"
#include "sim/cli/list_option.h"
#include "sim/cli/table.h"
#include "sim/experiment/summary.h"
#include "sim/gpu/hindsight_search.h"
#include "sim/gpu/met_bound.h"
#include "sim/gpu/trace.h"
#include "sim/report/csv.h"
#include "sim/workload/paths.h"

namespace pacml::cli {
namespace {

// A 95% confidence interval for one replay's deadline-met rate by batch
// means: the jobs in submission order are cut into kBatches consecutive
// batches, whose met rates are nearly independent samples (a trace has one
// run, so there are no seeds to average over).
constexpr int kBatches = 10;
sim::Stat met_rate_batch_means(const std::vector<gpu::JobOutcome>& jobs) {
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

nlohmann::json stats_json(const gpu::ReplayStats& s, const sim::Stat& met,
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
          {"turned_away_rate_mean", s.turned_away_rate},
          {"no_start_rate_mean", s.no_start_rate},
          {"late_rate_mean", s.late_rate},
          {"gpu_hours_mean", s.gpu_hours},
          {"gpu_hours_per_met_mean", s.gpu_hours_per_met},
          {"utilisation_mean", s.utilisation},
          {"queue_delay_mean", s.queue_delay_mean},
          {"mean_gpus", s.mean_gpus}};
}

nlohmann::json bounds_json(const std::vector<std::pair<gpu::Admission, gpu::MetBound>>& bounds) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [mode, b] : bounds)
    out.push_back({{"admission", gpu::admission_name(mode)},
                   {"jobs", b.jobs},
                   {"unservable", b.unservable},
                   {"met_at_most", b.met_at_most},
                   {"deadline_met_rate_at_most", b.rate}});
  return out;
}

void add_row(Table& table, const gpu::ReplayStats& s, const sim::Stat& met) {
  table.add(
      {s.policy, s.admission, significant_number_text(s.deadline_met_rate, 4),
       "± " + significant_number_text(met.ci95, 2), significant_number_text(s.unservable_rate, 4),
       significant_number_text(s.blocking_rate, 4), significant_number_text(s.turned_away_rate, 4),
       significant_number_text(s.gpu_hours, 6), significant_number_text(s.gpu_hours_per_met, 4),
       significant_number_text(s.utilisation, 3), significant_number_text(s.queue_delay_mean, 5),
       significant_number_text(s.mean_gpus, 3)});
}

nlohmann::json count_json(const std::map<std::string, long>& counts) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [what, n] : counts) out[what] = n;
  return out;
}

// The reader's report, as the paper's replay prints it.
nlohmann::json trace_json(const sim::TraceReport& read, sim::TraceFormat format) {
  return {{"path", read.path},       {"format", sim::trace_format_name(format)},
          {"lines", read.lines},     {"records", read.records},
          {"skipped", read.skipped}, {"skipped_by_reason", count_json(read.skipped_by_reason)}};
}

nlohmann::json mapping_json(const gpu::MappingReport& mapped) {
  return {{"jobs", mapped.jobs},
          {"skipped", mapped.skipped},
          {"skipped_by_reason", count_json(mapped.skipped_by_reason)},
          {"jobs_by_model", count_json(mapped.jobs_by_model)},
          {"deadline_from", count_json(mapped.deadline_from)},
          {"steps_fallback", mapped.steps_fallback}};
}

void print_report(const sim::TraceReport& read, sim::TraceFormat format,
                  const gpu::MappingReport& mapped, const gpu::TraceMapping& mapping) {
  std::cerr << "trace " << read.path << " (" << sim::trace_format_name(format)
            << "): " << read.lines << " data lines, " << read.records << " records, "
            << read.skipped << " lines skipped\n";
  for (const auto& [reason, n] : read.skipped_by_reason)
    std::cerr << "  skipped " << n << ": " << reason << "\n";
  std::cerr << "mapping: " << mapped.jobs << " jobs replayed, " << mapped.skipped << " skipped\n";
  for (const auto& [reason, n] : mapped.skipped_by_reason)
    std::cerr << "  skipped " << n << ": " << reason << "\n";
  for (const auto& [model, n] : mapped.jobs_by_model)
    std::cerr << "  " << model << ": " << n << "\n";
  for (const auto& [from, n] : mapped.deadline_from)
    std::cerr << "  deadline from " << from << ": " << n << "\n";
  if (mapped.steps_fallback > 0)
    std::cerr << "  iterations from --steps (" << mapping.steps << "): " << mapped.steps_fallback
              << "\n";
}

// --cluster, else the paper's cluster of --topology (one A100 per server).
ClusterSpec replay_cluster(const ReplayOptions& o) {
  if (o.cluster) {
    if (o.topology)
      throw InputError("--topology",
                       "names the paper's cluster of that shape: give either --cluster or "
                       "--topology, not both");
    return load_cluster(*o.cluster, "--cluster");
  }
  ClusterSpec spec =
      ClusterSpec::paper(RampTopology::parse(o.topology.value_or("4x4x2"), "--topology"));
  // As the Slurm plugin's cluster without cluster: (plugin/config.cpp
  // gpu_cluster_of), so that a replay of its history costs what it decided on.
  spec.intra_server_bandwidth = 300e9;
  spec.intra_server_latency = 3e-6;
  return spec;
}

std::shared_ptr<const PhysicalEstimator> replay_estimator(const ReplayOptions& o) {
  std::shared_ptr<const ThroughputTable> table;
  if (o.throughput_table)
    table = std::make_shared<const ThroughputTable>(ThroughputTable::load_dir(*o.throughput_table));
  return std::make_shared<const PhysicalEstimator>(replay_cluster(o),
                                                   PhysicalConstants::calibrated(), table);
}

// The GPU policies and admission modes to replay, checked before the trace is read.
struct Runs {
  std::vector<gpu::Policy> policies;
  std::vector<gpu::Admission> modes;
  gpu::ReplayConfig config;
};

Runs runs_of(const ReplayOptions& o, std::uint64_t seed) {
  Runs runs;
  for (const std::string& name : split_list(o.policies.value_or("requested,min_feasible,para_max")))
    runs.policies.push_back(gpu::Policy::parse(name, "--policies", sim::model_search_dirs()));
  runs.modes = o.admissions;
  runs.config.order = o.order;
  runs.config.decide = o.decide;
  runs.config.seed = seed;
  return runs;
}

std::vector<gpu::Job> read_jobs(const ReplayOptions& o, const gpu::TraceMapping& mapping,
                                const PhysicalEstimator& estimator, sim::TraceFormat format,
                                sim::TraceReport& read, gpu::MappingReport& mapped) {
  sim::TraceReadOptions read_options;
  read_options.skip_bad = o.skip_bad_lines;
  std::vector<sim::TraceRecord> records = sim::read_trace_file(o.trace, format, read_options, read);
  if (o.max_jobs && static_cast<long>(records.size()) > *o.max_jobs) records.resize(*o.max_jobs);
  return gpu::jobs_from_trace(records, mapping, estimator, mapped);
}

// The admission modes --hindsight searches in (--hindsight-admission), each
// one --admission replays.
std::vector<gpu::Admission> hindsight_modes(const ReplayOptions& o, const Runs& runs) {
  const bool queue_only = runs.modes == std::vector<gpu::Admission>{gpu::Admission::kQueue};
  const std::vector<gpu::Admission> modes =
      o.hindsight_admissions.value_or(std::vector<gpu::Admission>{
          queue_only ? gpu::Admission::kQueue : gpu::Admission::kImmediate});
  for (gpu::Admission mode : modes)
    if (!std::count(runs.modes.begin(), runs.modes.end(), mode))
      throw InputError("--hindsight-admission", "'" + gpu::admissions_name(modes) +
                                                    "' is not replayed: --admission " +
                                                    gpu::admissions_name(runs.modes));
  if (runs.config.decide != gpu::DecisionTime::kAtStart &&
      std::count(modes.begin(), modes.end(), gpu::Admission::kQueue))
    throw InputError("--hindsight",
                     "with a queue the search decides each job when it is tried (--decide start)");
  return modes;
}

// --hindsight N: the search teacher's options, checked before any replay.
std::optional<gpu::HindsightSearchOptions> hindsight_of(const ReplayOptions& o, const Runs& runs) {
  if (!o.hindsight) {
    if (o.hindsight_admissions)
      throw InputError("--hindsight-admission", "only with --hindsight N");
    if (o.hindsight_base) throw InputError("--hindsight-base", "only with --hindsight N");
    return std::nullopt;
  }
  gpu::HindsightSearchOptions search;
  search.order = runs.config.order;
  search.base = gpu::Policy::parse(o.hindsight_base.value_or("min_feasible"), "--hindsight-base",
                                   sim::model_search_dirs());
  search.lookahead = *o.hindsight;
  search.seed = runs.config.seed;
  return search;
}

// --jobs-csv: each job's outcome under one policy, with the GPU count the
// trace asked for beside the one it ran on, so a replay can be checked job by
// job against what Slurm decided (tests/plugin/slurm_gpu_integration.sh).
void write_job_rows(std::ostream& out, const gpu::ReplayStats& stats,
                    const std::vector<gpu::Job>& jobs,
                    const std::vector<gpu::JobOutcome>& outcomes) {
  for (size_t i = 0; i < jobs.size() && i < outcomes.size(); ++i) {
    const gpu::JobOutcome& o = outcomes[i];
    out << sim::csv_field(stats.policy) << ',' << sim::csv_field(stats.admission) << ','
        << sim::csv_field(jobs[i].id) << ',' << jobs[i].requested << ',' << o.gpus << ','
        << (o.gpus > 0 ? sim::csv_number(o.start) : "") << ','
        << (o.gpus > 0 ? sim::csv_number(o.end) : "") << ',' << (o.met ? 1 : 0) << '\n';
  }
}

}  // namespace

int replay_on_gpus(const ReplayOptions& o, const gpu::TraceMapping& mapping) {
  const sim::TraceFormat format = *o.format;
  Runs runs = runs_of(o, mapping.seed);
  std::optional<gpu::HindsightSearchOptions> search = hindsight_of(o, runs);
  const std::vector<gpu::Admission> search_modes =
      search ? hindsight_modes(o, runs) : std::vector<gpu::Admission>{};
  const auto estimator = replay_estimator(o);
  sim::TraceReport read;
  gpu::MappingReport mapped;
  const std::vector<gpu::Job> jobs = read_jobs(o, mapping, *estimator, format, read, mapped);
  const bool json = o.json;
  if (!json) print_report(read, format, mapped, mapping);
  DurationModel durations(estimator);
  std::ofstream job_rows;
  if (o.jobs_csv) {
    job_rows.open(*o.jobs_csv, std::ios::binary);
    if (!job_rows) throw InputError(*o.jobs_csv, "cannot write the --jobs-csv file");
    job_rows << "policy,admission,id,requested,gpus,start,end,met\n";
  }
  nlohmann::json summary = nlohmann::json::array();
  Table table({"policy", "admission", "deadlines met", "95% CI", "unservable", "blocked",
               "turned away", "GPU-hours", "GPU-h/met", "utilisation", "queue delay s",
               "GPUs/job"});
  for (gpu::Admission mode : runs.modes)
    for (const gpu::Policy& policy : runs.policies) {
      runs.config.policy = policy;
      runs.config.admission = mode;
      const gpu::ReplayResult result = gpu::replay_on_gpus(jobs, durations, runs.config);
      const sim::Stat met = met_rate_batch_means(result.jobs);
      summary.push_back(stats_json(result.stats, met, estimator->cluster().name));
      add_row(table, result.stats, met);
      if (job_rows.is_open()) write_job_rows(job_rows, result.stats, jobs, result.jobs);
    }
  for (gpu::Admission mode : search_modes) {
    search->admission = mode;
    const gpu::ReplayResult result = gpu::hindsight_search(jobs, durations, *search);
    const sim::Stat met = met_rate_batch_means(result.jobs);
    summary.push_back(stats_json(result.stats, met, estimator->cluster().name));
    add_row(table, result.stats, met);
    if (job_rows.is_open()) write_job_rows(job_rows, result.stats, jobs, result.jobs);
  }
  if (job_rows.is_open() && !job_rows.flush())
    throw InputError(*o.jobs_csv, "writing the --jobs-csv file failed");
  std::vector<std::pair<gpu::Admission, gpu::MetBound>> bounds;
  if (o.bound)
    for (gpu::Admission mode : runs.modes)
      bounds.emplace_back(mode, gpu::met_upper_bound(jobs, durations, mode));
  const std::string cluster = estimator->cluster().summary();
  if (json) {
    nlohmann::json out = {{"replay", "gpu"},
                          {"profile", "physical"},
                          {"cluster", cluster},
                          {"trace", trace_json(read, format)},
                          {"mapping", mapping_json(mapped)},
                          {"summary", summary}};
    if (!bounds.empty()) out["bound"] = bounds_json(bounds);
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << o.trace << ": " << mapped.jobs << " jobs replayed on GPUs with the physical model, "
            << cluster << "\n";
  table.print(std::cout);
  std::cout << "95% CI: batch means over " << kBatches
            << " consecutive batches of the trace's jobs (sim/README.md)\n";
  for (const auto& [mode, b] : bounds)
    std::cout << "no policy meets more than " << significant_number_text(b.rate, 4) << " ("
              << b.met_at_most << " of " << b.jobs << ") with " << gpu::admission_name(mode)
              << " admission: capacity bound, sim/README.md\n";
  return 0;
}

}  // namespace pacml::cli
