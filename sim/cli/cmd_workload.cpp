// `pacml workload` — workloads fitted to real traces (sim/gpu/fitted_workload.h):
//   fit TRACE... --out FILE.yaml     estimate the parameters from ElasticFlow traces
//   run FILE.yaml --cluster C ...    draw jobs from them and replay them on a GPU
//                                    cluster under each policy, over seeds, with CIs
#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/util/error.h"
#include "sim/calibration/elasticflow_archive.h"
#include "sim/cli/args.h"
#include "sim/cli/command.h"
#include "sim/cli/list_option.h"
#include "sim/cli/parallel_source.h"
#include "sim/cli/table.h"
#include "sim/gpu/fitted_workload.h"

namespace pacml::cli {
namespace {

int fit(const std::vector<std::string>& argv) {
  Args args("pacml workload fit TRACE... --out FILE.yaml",
            "Fits a workload to ElasticFlow traces (.csv, a directory, or the .tar.gz): arrival\n"
            "rate by hour of day, (model, batch) mix, log-normal iterations, requested GPUs and\n"
            "deadline slack. Writes a small YAML file of numbers (no trace rows).");
  args.positional_list("TRACE", "ElasticFlow trace(s)");
  args.option("out", "FILE", "the workload file to write (required)");
  if (!args.parse(argv)) return 0;
  if (!args.has("out")) throw InputError("--out", "give the workload file to write");
  std::vector<sim::TraceRecord> records;
  std::string source;
  for (const std::string& path : args.positionals()) {
    for (sim::TraceRecord& r : sim::read_elasticflow_traces(path, nullptr))
      records.push_back(std::move(r));
    const size_t slash = path.rfind('/');
    source += (source.empty() ? "" : " ") + path.substr(slash == std::string::npos ? 0 : slash + 1);
  }
  const sim::FittedWorkload workload = sim::fit_workload(records, source);
  std::ofstream out(args.get("out"));
  if (!out) throw InputError(args.get("out"), "cannot write the workload file");
  sim::write_workload(out, workload);
  std::cout << args.get("out") << ": fitted on " << workload.jobs_fitted << " jobs, "
            << workload.models.size() << " (model, batch) pairs\n";
  return 0;
}

struct Summary {
  double mean = 0, ci95 = 0;
};

Summary summarise(const std::vector<double>& values) {
  Summary s;
  const double n = static_cast<double>(values.size());
  for (double v : values) s.mean += v / n;
  if (values.size() > 1) {
    double var = 0;
    for (double v : values) var += (v - s.mean) * (v - s.mean) / (n - 1);
    s.ci95 = 1.96 * std::sqrt(var / n);
  }
  return s;
}

int run(const std::vector<std::string>& argv) {
  Args args(
      "pacml workload run FILE.yaml --cluster C [--load X] [--jobs N] [--seeds N] "
      "[--admission immediate|queue|both] [--policies P,...] [--json]",
      "Draws jobs from a fitted workload at `load` times its arrival rate and replays\n"
      "them on a GPU cluster with the physical model under each policy, one run per\n"
      "seed; prints the deadline-met rate and the other metrics with 95% CIs.");
  args.positional("FILE", "workload file (pacml workload fit; contrib/workloads/*.yaml)");
  add_cluster_options(args);
  args.option("load", "X", "arrival rate as a multiple of the fitted one", "1");
  args.option("jobs", "N", "jobs per run", "2000");
  args.option("seeds", "N", "runs (seeds 1..N)", "3");
  args.option("admission", "MODE", "immediate, queue or both", "both");
  args.option("order", "ORDER", "queue order: edf or fifo", "edf");
  args.option("policies", "P1,P2", "GPU policies", "requested,min_feasible,para_max");
  args.flag("json", "print one JSON array of summaries");
  if (!args.parse(argv)) return 0;
  const sim::FittedWorkload workload = sim::load_workload_file(args.positionals()[0]);
  auto estimator = std::make_shared<const PhysicalEstimator>(load_physical_estimator(args));
  DurationModel durations(estimator);
  const double load = args.get_double("load");
  const long jobs = args.get_long("jobs", 1, 10'000'000);
  const long seeds = args.get_long("seeds", 1, 1000);
  std::vector<sim::Admission> modes = {sim::Admission::kImmediate, sim::Admission::kQueue};
  if (args.get("admission") != "both")
    modes = {sim::parse_admission(args.get("admission"), "--admission")};
  sim::GpuReplayConfig config;
  config.order = sim::parse_queue_order(args.get("order"), "--order");
  std::vector<std::vector<sim::GpuJob>> draws;
  for (long s = 1; s <= seeds; ++s)
    draws.push_back(
        sim::generate_jobs(workload, load, jobs, static_cast<std::uint64_t>(s), durations));
  nlohmann::json out = nlohmann::json::array();
  Table table({"policy", "admission", "deadlines met", "unservable", "GPU-h/met", "utilisation",
               "queue delay s", "GPUs/job"});
  for (sim::Admission mode : modes)
    for (const std::string& name : split_list(args.get("policies"))) {
      config.policy = GpuPolicy::parse(name, "--policies");
      config.admission = mode;
      std::map<std::string, std::vector<double>> metrics;
      for (long s = 0; s < seeds; ++s) {
        config.seed = static_cast<std::uint64_t>(s + 1);
        const sim::GpuReplayStats r = sim::replay_on_gpus(draws[s], durations, config).stats;
        metrics["deadline_met_rate"].push_back(r.deadline_met_rate);
        metrics["blocking_rate"].push_back(r.blocking_rate);
        metrics["unservable_rate"].push_back(r.unservable_rate);
        metrics["gpu_hours"].push_back(r.gpu_hours);
        metrics["gpu_hours_per_met"].push_back(r.gpu_hours_per_met);
        metrics["utilisation"].push_back(r.utilisation);
        metrics["queue_delay"].push_back(r.queue_delay_mean);
        metrics["mean_gpus"].push_back(r.mean_gpus);
      }
      nlohmann::json row = {{"policy", name},
                            {"admission", sim::admission_name(mode)},
                            {"cluster", estimator->cluster().name},
                            {"load", load},
                            {"jobs", jobs},
                            {"seeds", seeds}};
      for (const auto& [key, values] : metrics) {
        const Summary s = summarise(values);
        row[key + "_mean"] = s.mean;
        row[key + "_ci95"] = s.ci95;
      }
      auto cell = [&](const char* key, int digits) {
        const Summary s = summarise(metrics.at(key));
        return format_number(s.mean, digits) + " ± " + format_number(s.ci95, 2);
      };
      table.add({name, sim::admission_name(mode), cell("deadline_met_rate", 3),
                 cell("unservable_rate", 3), cell("gpu_hours_per_met", 3), cell("utilisation", 3),
                 cell("queue_delay", 4), cell("mean_gpus", 3)});
      out.push_back(row);
    }
  if (args.is_set("json")) {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << args.positionals()[0] << " at load " << load << ": " << jobs << " jobs x " << seeds
            << " seeds on " << estimator->cluster().summary() << " (mean ± 95% CI)\n";
  table.print(std::cout);
  return 0;
}

int workload_command(const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0] == "--help" || argv[0] == "-h") {
    std::cout << "usage: pacml workload fit TRACE... --out FILE.yaml\n"
                 "       pacml workload run FILE.yaml --cluster C [options]\n\n"
                 "Workloads fitted to real traces. 'pacml workload fit --help', "
                 "'pacml workload run --help' for details.\n";
    return argv.empty() ? 2 : 0;
  }
  const std::vector<std::string> rest(argv.begin() + 1, argv.end());
  if (argv[0] == "fit") return fit(rest);
  if (argv[0] == "run") return run(rest);
  throw InputError("pacml workload", "unknown subcommand '" + argv[0] + "'; known: fit, run");
}

}  // namespace

PACML_COMMAND("workload", "fit workloads to real traces and run them on GPU clusters",
              workload_command);

}  // namespace pacml::cli
