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
  std::vector<std::string> traces;
  std::optional<std::string> out_path;
  args.bind_positionals("TRACE", "ElasticFlow trace(s)", traces);
  args.bind("out", "FILE", "the workload file to write (required)", out_path);
  if (!args.parse(argv)) return 0;
  if (!out_path) throw InputError("--out", "give the workload file to write");
  std::vector<sim::TraceRecord> records;
  std::string source;
  for (const std::string& path : traces) {
    for (sim::TraceRecord& r : sim::read_elasticflow_traces(path, nullptr))
      records.push_back(std::move(r));
    const size_t slash = path.rfind('/');
    source += (source.empty() ? "" : " ") + path.substr(slash == std::string::npos ? 0 : slash + 1);
  }
  const gpu::FittedWorkload workload = gpu::fit_workload(records, source);
  std::ofstream out(*out_path);
  if (!out) throw InputError(*out_path, "cannot write the workload file");
  gpu::write_workload(out, workload);
  std::cout << *out_path << ": fitted on " << workload.jobs_fitted << " jobs, "
            << workload.models.size() << " (model, batch) pairs\n";
  return 0;
}

// `pacml workload run`'s options, most bound straight into the
// fitted-workload experiment they describe, so `pacml workload run` and
// `pacml evaluate` on an experiment file report the same figures.
struct RunOptions {
  sim::ExperimentSpec spec;
  ClusterChoice cluster;
  long seeds = 3;
  std::string policies = "requested,min_feasible,para_max";
  bool json = false;
};

void bind_run_options(Args& args, RunOptions& o) {
  sim::FittedExperimentSpec& f = o.spec.fitted;
  args.bind_positional("FILE", "workload file (pacml workload fit; contrib/workloads/*.yaml)",
                       f.params);
  add_cluster_options(args, o.cluster);
  args.bind("load", "X", "arrival rate as a multiple of the fitted one", f.load);
  args.bind("jobs", "N", "jobs per run", f.jobs, 1, 10'000'000);
  args.bind("seeds", "N", "runs (seeds 1..N)", o.seeds, 1, 1000);
  args.bind_parsed("admission", "MODE", "immediate, queue or both", f.admissions,
                   gpu::parse_admissions, gpu::admissions_name(f.admissions));
  args.bind_parsed("order", "ORDER", "queue order: edf or fifo", f.order, gpu::parse_queue_order,
                   "edf");
  args.bind("policies", "P1,P2", "GPU policies", o.policies);
  args.bind_flag("json", "print one JSON array of summaries", o.json);
}

// The parsed options as a fitted-workload experiment.
void finish_run_spec(RunOptions& o) {
  sim::ExperimentSpec& spec = o.spec;
  spec.name = "workload run";
  spec.source = "pacml workload run";
  spec.workload_type = "fitted";
  if (!(spec.fitted.load > 0)) throw InputError("--load", "load must be positive");
  for (long s = 1; s <= o.seeds; ++s) spec.seeds.push_back(static_cast<std::uint64_t>(s));
  spec.policies = split_list(o.policies);
  for (const std::string& p : spec.policies)
    gpu::Policy::parse(p, "--policies", sim::model_search_dirs());
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
  RunOptions o;
  bind_run_options(args, o);
  if (!args.parse(argv)) return 0;
  finish_run_spec(o);
  const sim::ExperimentSpec& spec = o.spec;
  auto estimator = std::make_shared<const PhysicalEstimator>(load_physical_estimator(o.cluster));
  const gpu::Evaluation evaluation = gpu::run_experiment(spec, estimator);
  if (o.json) {
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
  std::cout << spec.fitted.params << " at load " << spec.fitted.load << ": " << spec.fitted.jobs
            << " jobs x " << spec.seeds.size() << " seeds on " << estimator->cluster().summary()
            << " (mean ± 95% CI)\n"
            << gpu::format_table(evaluation.groups);
  return 0;
}

int workload_command(const std::vector<std::string>& argv) {
  static const VerbTable verbs = {
      {"fit", {fit, "fit a workload to ElasticFlow traces: FILE.yaml of a few numbers"}},
      {"run", {run, "draw jobs from a fitted workload and replay them under each policy"}}};
  return run_verb("workload", "Workloads fitted to real traces.", verbs, argv);
}

}  // namespace

PACML_COMMAND("workload", "fit workloads to real traces and run them on GPU clusters",
              workload_command);

}  // namespace pacml::cli
