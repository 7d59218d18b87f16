// `pacml workload` — workloads fitted to real traces (sim/gpu/fitted_workload.h):
//   fit TRACE... --out FILE.yaml     estimate the parameters from ElasticFlow traces
//   run FILE.yaml --cluster C ...    draw jobs from them and replay them on a GPU
//                                    cluster under each policy, over seeds, with CIs
#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/gpu/policy.h"
#include "core/util/args.h"
#include "core/util/error.h"
#include "sim/calibration/elasticflow_archive.h"
#include "sim/cli/command.h"
#include "sim/cli/list_option.h"
#include "sim/cli/parallel_source.h"
#include "sim/gpu/evaluation.h"
#include "sim/gpu/fitted_workload.h"
#include "sim/workload/paths.h"

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
  const gpu::FittedWorkload workload = gpu::fit_workload(records, source);
  std::ofstream out(args.get("out"));
  if (!out) throw InputError(args.get("out"), "cannot write the workload file");
  gpu::write_workload(out, workload);
  std::cout << args.get("out") << ": fitted on " << workload.jobs_fitted << " jobs, "
            << workload.models.size() << " (model, batch) pairs\n";
  return 0;
}

// The options as a fitted-workload experiment, so `pacml workload run` and
// `pacml evaluate` on an experiment file report the same figures.
sim::ExperimentSpec run_spec(const Args& args) {
  sim::ExperimentSpec spec;
  spec.name = "workload run";
  spec.source = "pacml workload run";
  spec.workload_type = "fitted";
  sim::FittedExperimentSpec& f = spec.fitted;
  f.params = args.positionals()[0];
  f.load = args.get_double("load");
  if (!(f.load > 0)) throw InputError("--load", "load must be positive");
  f.jobs = args.get_long("jobs", 1, 10'000'000);
  const long seeds = args.get_long("seeds", 1, 1000);
  for (long s = 1; s <= seeds; ++s) spec.seeds.push_back(static_cast<std::uint64_t>(s));
  if (args.get("admission") != "both")
    f.admissions = {gpu::parse_admission(args.get("admission"), "--admission")};
  f.order = gpu::parse_queue_order(args.get("order"), "--order");
  spec.policies = split_list(args.get("policies"));
  for (const std::string& p : spec.policies)
    gpu::Policy::parse(p, "--policies", sim::model_search_dirs());
  return spec;
}

int run(const std::vector<std::string>& argv) {
  Args args(
      "pacml workload run FILE.yaml --cluster C [--load X] [--jobs N] [--seeds N] "
      "[--admission immediate|queue|both] [--policies P,...] [--json]",
      "Draws jobs from a fitted workload at `load` times its arrival rate and replays\n"
      "them on a GPU cluster with the physical model under each policy, one run per\n"
      "seed; prints the deadline-met rate and the other metrics with 95% CIs.\n"
      "(An experiment file with `workload: {kind: fitted, ...}` does the same under\n"
      "`pacml evaluate`.)");
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
  const sim::ExperimentSpec spec = run_spec(args);
  auto estimator =
      std::make_shared<const PhysicalEstimator>(load_physical_estimator(cluster_choice(args)));
  const gpu::Evaluation evaluation = gpu::run_experiment(spec, estimator);
  if (args.is_set("json")) {
    nlohmann::json out = nlohmann::json::array();
    for (const gpu::GroupSummary& g : evaluation.groups) {
      nlohmann::json row = gpu::summary_to_json(g);
      row["cluster"] = estimator->cluster().name;
      row["load"] = spec.fitted.load;
      row["jobs"] = spec.fitted.jobs;
      out.push_back(row);
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << args.positionals()[0] << " at load " << spec.fitted.load << ": " << spec.fitted.jobs
            << " jobs x " << spec.seeds.size() << " seeds on " << estimator->cluster().summary()
            << " (mean ± 95% CI)\n"
            << gpu::format_table(evaluation.groups);
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
