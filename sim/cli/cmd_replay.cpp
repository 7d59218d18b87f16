// pacml replay: replay a real job trace (ElasticFlow, SWF, sacct, squeue --json)
// through the simulator under one or more policies.
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/util/args.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/world.h"
#include "sim/cli/command.h"
#include "sim/cli/list_option.h"
#include "sim/cli/replay_gpu.h"
#include "sim/cli/replay_options.h"
#include "sim/engine/policy_factory.h"
#include "sim/experiment/evaluation.h"
#include "sim/report/csv.h"
#include "sim/report/text_table.h"

namespace pacml::cli {
namespace {

// The GPU replay's record mapping (sim/gpu/trace.h) from the options the
// two replays share.
gpu::TraceMapping gpu_mapping(const ReplayOptions& o) {
  gpu::TraceMapping m;
  m.model_map = parse_map_option(o);
  m.unknown_model = o.unknown_model;
  if (m.unknown_model.empty())
    throw InputError("--unknown-model", "must be reject, skip or a model name");
  if (o.models) m.models = split_list(*o.models);
  m.steps = o.steps;
  m.fallback_beta = sim::BetaSpec::parse(o.beta_fallback, "--beta-fallback");
  m.seed = static_cast<std::uint64_t>(o.seed);
  return m;
}

// The experiment file's spec, or one from the options.
sim::ExperimentSpec load_paper_spec(const ReplayOptions& o) {
  sim::ExperimentSpec spec;
  if (!o.experiment) {
    spec.name = "replay";
    spec.profile = "reference";
    spec.topology = RampTopology::parse(o.topology.value_or("4x4x2"), "--topology").params();
    spec.steps = static_cast<int>(o.steps);
    return spec;
  }
  spec = sim::load_experiment_file(*o.experiment);
  if (spec.profile != "reference")
    throw InputError(*o.experiment,
                     "profile " + spec.profile +
                         ": pacml replay runs an experiment file on the paper's simulator, "
                         "which is profile reference's. Set 'profile: reference' in the file, "
                         "or replay with the physical model on GPUs without --experiment: "
                         "pacml replay TRACE --format F [--topology CxRxS | --cluster C] "
                         "[--policies ...]");
  return spec;
}

// The paper's simulator's record mapping (sim/trace/trace_workload.h) from
// the options; an experiment file's mapping is replaced, not merged.
sim::TraceMapping paper_trace_mapping(const ReplayOptions& o) {
  sim::TraceMapping m;
  m.base_dir = ".";
  m.model_map = parse_map_option(o);
  m.unknown_model = o.unknown_model;
  if (o.models) m.models = split_list(*o.models);
  m.time_scale = o.time_scale;
  m.gpu_scale = o.gpu_scale;
  m.beta_rule = o.beta_rule;
  m.steps_rule = o.steps_rule;
  m.iteration_scale = o.iteration_scale;
  if (o.max_jobs) m.max_jobs = *o.max_jobs;
  m.validate("pacml replay");
  return m;
}

// The experiment the paper's simulator replays: the trace as its workload,
// under the policies, seeds and horizon of the options.
sim::ExperimentSpec paper_replay_spec(const ReplayOptions& o) {
  sim::ExperimentSpec spec = load_paper_spec(o);
  spec.workload_type = "trace";
  spec.trace_path = o.trace;
  spec.trace_format = *o.format;
  spec.mapping = paper_trace_mapping(o);
  spec.skip_bad = o.skip_bad_lines;
  spec.betas = {sim::BetaSpec::parse(o.beta_fallback, "--beta-fallback")};
  if (o.policies)
    spec.policies = sim::split_policy_list(*o.policies, "--policies");
  else if (!o.experiment)
    spec.policies = {"para_max", "para_min", "sequential", "min_feasible"};
  for (const std::string& p : spec.policies) sim::check_policy_name(p, "--policies");
  spec.seeds = sim::parse_seed_list(o.seeds, "--seeds");
  const std::string& h = o.horizon;
  spec.horizon = h == "inf" || h == "none" ? sim::kInfiniteHorizon
                                           : parse_finite_double(h, "--horizon", "value");
  if (!(spec.horizon > 0)) throw InputError("--horizon", "must be positive");
  return spec;
}

void print_trace_reports(const sim::Experiment& experiment, sim::TraceFormat format) {
  const sim::TraceReport& trace = *experiment.trace_report();
  std::cerr << "trace " << trace.path << " (" << sim::trace_format_name(format)
            << "): " << trace.lines << " data lines, " << trace.records << " records, "
            << trace.skipped << " lines skipped\n";
  for (const auto& [reason, n] : trace.skipped_by_reason)
    std::cerr << "  skipped " << n << ": " << reason << "\n";
  std::cerr << "mapping: " << experiment.mapping_report()->describe() << "\n"
            << experiment.describe() << "\n";
}

// Runs every (policy, seed) episode; with --out, writes jobs.csv and
// occupancy.csv as the episodes finish, then the other outputs.
sim::Evaluation run_paper_replay(const ReplayOptions& o, const sim::Experiment& experiment) {
  sim::EvaluationOptions options;
  if (o.threads) options.threads = *o.threads;
  std::ofstream jobs, timeline;
  if (o.out) {
    sim::make_directories(*o.out);
    jobs.open(*o.out + "/jobs.csv", std::ios::binary);
    timeline.open(*o.out + "/occupancy.csv", std::ios::binary);
    if (!jobs || !timeline) throw InputError(*o.out, "cannot write jobs.csv / occupancy.csv");
    options.jobs_csv = &jobs;
    options.timeline_csv = &timeline;
  }
  sim::Evaluation evaluation = sim::run_evaluation(experiment, experiment.grid(), options);
  if (o.out) {
    jobs.close();
    timeline.close();
    std::cerr << sim::write_evaluation_outputs(*o.out, evaluation.episodes,
                                               o.no_plots ? nullptr : &evaluation.plot)
              << "\n";
  }
  return evaluation;
}

// --json: the trace and mapping reports, the summary per policy and every episode.
nlohmann::json paper_replay_json(const sim::Experiment& experiment, const sim::ExperimentSpec& spec,
                                 const sim::Evaluation& evaluation,
                                 const std::vector<sim::GroupSummary>& groups) {
  const sim::TraceReport& trace = *experiment.trace_report();
  const sim::MappingReport& mapping = *experiment.mapping_report();
  nlohmann::json j;
  j["replay"] = "paper";  // the simulator of the paper's model, as against "gpu"
  j["profile"] = spec.profile;
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
  return j;
}

int replay_on_paper_simulator(const ReplayOptions& o) {
  const sim::ExperimentSpec spec = paper_replay_spec(o);
  sim::Experiment experiment(spec);
  if (!o.json) print_trace_reports(experiment, spec.trace_format);
  const sim::Evaluation evaluation = run_paper_replay(o, experiment);
  const std::vector<sim::GroupSummary> groups = sim::summarize(evaluation.episodes);
  if (o.json) {
    std::cout << paper_replay_json(experiment, spec, evaluation, groups).dump(2) << "\n";
  } else {
    std::cerr << "finished in " << evaluation.wall_seconds << " s\n\n";
    std::cout << sim::format_summary_tables(groups, experiment.estimator()->profile().time_unit);
  }
  return 0;
}

int run_replay(const std::vector<std::string>& argv) {
  Args args(
      "pacml replay TRACE --format elasticflow|swf|sacct|squeue-json|pacml-log [options]",
      "Replays a job trace. World gpu (the default): on GPUs with the physical model "
      "(doc/PHYSICAL.md), on --cluster or else on the paper's cluster of --topology (one A100 "
      "per server); each job is a zoo model or graph file running its iterations by a deadline, "
      "and a policy chooses its GPU count. --world paper: on the paper's RAMP simulator "
      "(degrees 1..16, paper units), for parity with the paper. Mapping rules per format: "
      "sim/README.md. Jobs naming a model pacml does not know are rejected with file:line, "
      "skipped and counted (--unknown-model skip) or mapped (--unknown-model MODEL). Prints the "
      "trace and mapping report and a table per policy. Options marked [world gpu] or "
      "[--world paper] apply to that replay only.");
  ReplayOptions o;
  args.bind_positional("TRACE", "trace file (.gz is decompressed)", o.trace);
  declare_replay_options(args, o);
  if (!args.parse(argv)) return 0;
  if (!o.format)
    throw InputError("--format", "required: elasticflow, swf, sacct, squeue-json or pacml-log");
  const Replay replay = which_replay(o);
  check_applies(args, replay);
  if (replay == Replay::kGpu) return replay_on_gpus(o, gpu_mapping(o));
  return replay_on_paper_simulator(o);
}

}  // namespace

PACML_COMMAND("replay",
              "replay a job trace (ElasticFlow, SWF, sacct, squeue --json, pacml-log) on GPUs "
              "(or the paper's simulator) under policies",
              run_replay);

}  // namespace pacml::cli
