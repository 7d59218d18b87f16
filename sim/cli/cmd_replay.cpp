// pacml replay: replay a real job trace (ElasticFlow, SWF, sacct, squeue --json)
// through the simulator under one or more policies.
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/util/error.h"
#include "sim/cli/args.h"
#include "sim/cli/command.h"
#include "sim/cli/list_option.h"
#include "sim/cli/replay_gpu.h"
#include "sim/engine/policy_factory.h"
#include "sim/experiment/evaluation.h"
#include "sim/report/csv.h"
#include "sim/report/text_table.h"

namespace pacml::cli {
namespace {

int run_replay(const std::vector<std::string>& argv) {
  Args args(
      "pacml replay TRACE --format elasticflow|swf|sacct|squeue-json|pacml-log [options]",
      "Replays a job trace on a RAMP cluster: each trace job arrives at its (scaled) submission "
      "time "
      "with a model graph, a β derived from its deadline or time limit and N from its iterations "
      "or "
      "work (rules in sim/README.md). Jobs naming a model pacml has no graph for are rejected with "
      "file:line, skipped and counted (--unknown-model skip) or mapped (--unknown-model GRAPH). "
      "Prints the trace and mapping report and the blocking table per policy.");
  args.positional("TRACE", "trace file (.gz is decompressed)")
      .option("format", "F",
              "elasticflow, swf, sacct (--parsable2 with header), squeue-json, or pacml-log (the "
              "Slurm plugin's decision log)")
      .option("experiment", "FILE",
              "take profile, topology, steps and policies from this experiment file")
      .option("profile", "P", "reference or physical", "physical")
      .option("topology", "CxRxS", "RAMP shape", "4x4x2")
      .option("policies", "P1,P2", "policies to replay",
              "para_max,para_min,sequential,min_feasible")
      .option("seeds", "N|LIST", "seeds (matter for random policies and fallback β draws)", "1")
      .option("horizon", "T",
              "stop at this time (profile units); default: run the trace to its end", "inf")
      .option("map", "NAME=GRAPH,...", "map trace model names to zoo names or graph files")
      .option("unknown-model", "RULE", "reject (default), skip, or a graph to use instead",
              "reject")
      .option("models", "G1,G2",
              "graphs for jobs without a model (SWF, Slurm): chosen by executable/job id")
      .option("time-scale", "X", "profile time units per trace second", "1")
      .option("gpu-scale", "X",
              "multiply the trace's worker counts (replaying a larger cluster's trace)", "1")
      .option("beta-rule", "R", "work, slack or distribution", "work")
      .option("beta-fallback", "B", "β distribution for jobs whose β the trace does not give", "A")
      .option("steps-rule", "R", "auto, iterations, work or fixed", "auto")
      .option("iteration-scale", "X", "N = iterations × X (steps-rule iterations)", "1")
      .option("steps", "N", "N for steps-rule fixed and the fallback", "50")
      .option("max-jobs", "N", "replay only the first N jobs")
      .option("threads", "N", "worker threads")
      .option("out", "DIR",
              "write episodes/summary CSV+JSON, jobs.csv, occupancy.csv and plots into DIR")
      .flag("skip-bad-lines", "skip malformed lines (counted) instead of failing")
      .flag("no-plots", "do not draw PNG plots")
      .flag("json", "print one JSON object (trace report + summary array)");
  add_gpu_replay_options(args);
  if (!args.parse(argv)) return 0;
  if (args.positionals().size() != 1)
    throw InputError("pacml replay", "give exactly one trace file");
  if (!args.has("format"))
    throw InputError("--format", "required: elasticflow, swf, sacct, squeue-json or pacml-log");
  if (args.has("cluster")) return replay_on_gpu_cluster(args);
  for (const char* gpu_only : {"throughput-table", "admission", "order", "decide"})
    if (args.has(gpu_only))
      throw InputError(std::string("--") + gpu_only, "applies with --cluster (a GPU cluster)");
  sim::ExperimentSpec spec;
  if (args.has("experiment")) {
    spec = sim::load_experiment_file(args.get("experiment"));
  } else {
    spec.name = "replay";
    spec.profile = args.get("profile");
    Profile::by_name(spec.profile, "--profile");
    spec.topology = RampTopology::parse(args.get("topology"), "--topology").params();
    spec.steps = static_cast<int>(args.get_long("steps", 1, 1000000000));
  }
  spec.workload_type = "trace";
  spec.trace_path = args.positionals()[0];
  spec.trace_format = sim::parse_trace_format(args.get("format"), "--format");
  sim::TraceMapping& m = spec.mapping;
  m = sim::TraceMapping();
  m.base_dir = ".";
  if (args.has("map"))
    for (const std::string& pair : split_list(args.get("map"))) {
      const size_t eq = pair.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == pair.size())
        throw InputError("--map", "expected NAME=GRAPH, got '" + pair + "'");
      m.model_map[pair.substr(0, eq)] = pair.substr(eq + 1);
    }
  m.unknown_model = args.get("unknown-model");
  if (args.has("models")) m.models = split_list(args.get("models"));
  m.time_scale = args.get_double("time-scale");
  m.gpu_scale = args.get_double("gpu-scale");
  m.beta_rule = args.get("beta-rule");
  m.steps_rule = args.get("steps-rule");
  m.iteration_scale = args.get_double("iteration-scale");
  if (args.has("max-jobs")) m.max_jobs = args.get_long("max-jobs", 0, 1L << 40);
  m.validate("pacml replay");
  spec.skip_bad = args.is_set("skip-bad-lines");
  spec.betas = {sim::BetaSpec::parse(args.get("beta-fallback"), "--beta-fallback")};
  if (!args.has("experiment") || args.has("policies"))
    spec.policies = sim::split_policy_list(args.get("policies"), "--policies");
  for (const std::string& p : spec.policies) sim::check_policy_name(p, "--policies");
  spec.seeds = sim::parse_seed_list(args.get("seeds"), "--seeds");
  const std::string h = args.get("horizon");
  spec.horizon = h == "inf" || h == "none" ? sim::kInfiniteHorizon : args.get_double("horizon");
  if (!(spec.horizon > 0)) throw InputError("--horizon", "must be positive");

  sim::Experiment experiment(spec);
  const sim::TraceReport& trace = *experiment.trace_report();
  const sim::MappingReport& mapping = *experiment.mapping_report();
  if (!args.is_set("json")) {
    std::cerr << "trace " << trace.path << " (" << sim::trace_format_name(spec.trace_format)
              << "): " << trace.lines << " data lines, " << trace.records << " records, "
              << trace.skipped << " lines skipped\n";
    for (const auto& [reason, n] : trace.skipped_by_reason)
      std::cerr << "  skipped " << n << ": " << reason << "\n";
    std::cerr << "mapping: " << mapping.describe() << "\n" << experiment.describe() << "\n";
  }
  sim::EvaluationOptions options;
  if (args.has("threads")) options.threads = static_cast<int>(args.get_long("threads", 1, 1024));
  std::ofstream jobs, timeline;
  if (args.has("out")) {
    sim::make_directories(args.get("out"));
    jobs.open(args.get("out") + "/jobs.csv", std::ios::binary);
    timeline.open(args.get("out") + "/occupancy.csv", std::ios::binary);
    if (!jobs || !timeline)
      throw InputError(args.get("out"), "cannot write jobs.csv / occupancy.csv");
    options.jobs_csv = &jobs;
    options.timeline_csv = &timeline;
  }
  const sim::Evaluation evaluation = sim::run_evaluation(experiment, experiment.grid(), options);
  if (args.has("out")) {
    jobs.close();
    timeline.close();
    std::cerr << sim::write_evaluation_outputs(args.get("out"), evaluation.episodes,
                                               args.is_set("no-plots") ? nullptr : &evaluation.plot)
              << "\n";
  }
  const std::vector<sim::GroupSummary> groups = sim::summarize(evaluation.episodes);
  if (args.is_set("json")) {
    nlohmann::json j;
    j["trace"] = {{"path", trace.path},       {"format", sim::trace_format_name(spec.trace_format)},
                  {"lines", trace.lines},     {"records", trace.records},
                  {"skipped", trace.skipped}, {"skipped_by_reason", trace.skipped_by_reason}};
    j["mapping"] = {{"jobs", mapping.jobs},
                    {"skipped", mapping.skipped},
                    {"skipped_by_reason", mapping.skipped_by_reason},
                    {"mapped", mapping.mapped},
                    {"beta_from_trace", mapping.beta_from_trace},
                    {"beta_fallback", mapping.beta_fallback}};
    j["summary"] = nlohmann::json::array();
    for (const sim::GroupSummary& g : groups) j["summary"].push_back(sim::summary_to_json(g));
    j["episodes"] = nlohmann::json::array();
    for (const sim::EpisodeStats& e : evaluation.episodes)
      j["episodes"].push_back(sim::episode_to_json(e));
    j["wall_seconds"] = evaluation.wall_seconds;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cerr << "finished in " << evaluation.wall_seconds << " s\n\n";
    std::cout << sim::format_summary_tables(groups, experiment.estimator()->profile().time_unit);
  }
  return 0;
}

}  // namespace

PACML_COMMAND("replay",
              "replay a job trace (ElasticFlow, SWF, sacct, squeue --json) under policies",
              run_replay);

}  // namespace pacml::cli
