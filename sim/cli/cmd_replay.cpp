// pacml replay: replay a real job trace (ElasticFlow, SWF, sacct, squeue --json)
// through the simulator under one or more policies.
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/util/args.h"
#include "core/util/error.h"
#include "core/world.h"
#include "sim/cli/command.h"
#include "sim/cli/list_option.h"
#include "sim/cli/replay_gpu.h"
#include "sim/cli/world_option.h"
#include "sim/engine/policy_factory.h"
#include "sim/experiment/evaluation.h"
#include "sim/report/csv.h"
#include "sim/report/text_table.h"

namespace pacml::cli {
namespace {

// Which of the two replays an option means something to.
enum Applies : unsigned { kPaper = 1, kGpu = 2, kBoth = kPaper | kGpu };

struct ReplayOption {
  const char* name;
  const char* metavar;  // "" for a flag
  const char* help;
  const char* default_value;
  Applies applies;
  const char* instead = "";  // the other replay's option for the same thing
};

// The options of the trace, its mapping and the policies, most of which both
// replays take (the first part of replay_options()).
std::vector<ReplayOption> trace_options() {
  return {
      {"format", "F",
       "elasticflow, swf, sacct (--parsable2 with header, or --json), squeue-json, or pacml-log "
       "(the Slurm plugin's decision log)",
       "", kBoth},
      {"world", "W",
       "gpu: on GPUs with the physical model; paper: on the paper's simulator (its reference "
       "profile)",
       "gpu", kBoth},
      {"profile", "P", "the name --world had before: physical = gpu, reference = paper", "", kBoth},
      {"topology", "CxRxS",
       "the paper's RAMP shape; world gpu: the paper's cluster of that shape, one A100 per "
       "server, unless --cluster",
       "4x4x2", kBoth},
      {"cluster", "FILE|NAME",
       "the GPU cluster instead of the paper's (contrib/clusters/*.yaml or a preset: "
       "dgx-a100-4x8, dgx-a100-16x8, ramp-a100-16x8, ...)",
       "", kGpu},
      {"policies", "P1,P2",
       "policies to replay. Physical (default requested,min_feasible,para_max): requested, "
       "min_feasible, para_max, fixed:K, random, capped:X or pacml:MODEL (the learned GPU policy, "
       "pacml:default). Reference (default para_max,para_min,sequential,min_feasible): the "
       "paper's",
       "", kBoth},
      {"seeds", "N|LIST", "seeds: N (0..N-1) or a list (random policies and fallback β draws)", "1",
       kPaper, "--seed"},
      {"seed", "S", "the seed of the random policy and the fallback β draws", "1", kGpu, "--seeds"},
      {"map", "NAME=MODEL,...", "map trace model names to zoo models or graph files", "", kBoth},
      {"unknown-model", "RULE",
       "a model pacml does not know: reject (file:line), skip (counted), or a model to use instead",
       "reject", kBoth},
      {"models", "G1,G2", "models for jobs without one (SWF, Slurm): chosen by executable/job id",
       "", kBoth},
      {"beta-fallback", "B", "β distribution for jobs whose requirement the trace does not give",
       "A", kBoth},
      {"steps", "N", "N (iterations) for jobs the trace gives none", "50", kBoth},
      {"max-jobs", "N", "replay only the first N jobs", "", kBoth},
      {"skip-bad-lines", "", "skip malformed lines (counted) instead of failing", "", kBoth},
      {"no-plots", "", "do not draw PNG plots (the GPU replay draws none)", "", kBoth},
      {"json", "", "print one JSON object (trace and mapping report + summary array)", "", kBoth},
  };
}

// The options only the GPU replay takes.
std::vector<ReplayOption> gpu_replay_options() {
  return {
      {"jobs-csv", "FILE",
       "write one row per job and policy: policy, admission, id, the GPUs the trace asked for "
       "(requested), the GPUs it ran on (0: never started), start, end, met",
       "", kGpu},
      {"throughput-table", "DIR",
       "measured iterations/s per model (ElasticFlow's MODEL.csv format)", "", kGpu},
      {"admission", "MODE", "immediate (start or block), queue (wait; as Slurm), or both", "queue",
       kGpu},
      {"order", "ORDER", "queue admission: edf or fifo", "edf", kGpu},
      {"hindsight", "N",
       "also a search teacher that knows the trace: at each decision every action the learned "
       "policy could take is tried, followed by the base (--hindsight-base) for the next N "
       "arrivals, and the best kept",
       "", kGpu},
      {"hindsight-admission", "MODE",
       "the search's admission: immediate, queue or both (default: immediate, or queue with "
       "--admission queue); a queue decides a waiting job again at each completion, so its "
       "search takes about ten times longer",
       "", kGpu},
      {"hindsight-base", "POLICY",
       "the GPU policy the search follows after each action it tries (any --policies name, "
       "e.g. pacml:default: one step of improvement over that policy)",
       "min_feasible", kGpu},
      {"bound", "",
       "also the share of deadlines no policy can exceed on this trace and cluster (a capacity "
       "relaxation, sim/README.md)",
       "", kGpu},
      {"decide", "WHEN",
       "queue admission: a waiting job's GPU count is chosen at its start, or once at submission "
       "as the Slurm plugin does (doc/SLURM.md §10)",
       "start", kGpu},
  };
}

// The options only the paper's simulator takes.
std::vector<ReplayOption> paper_replay_options() {
  return {
      {"experiment", "FILE",
       "take profile (reference), topology, steps and policies from this experiment file", "",
       kPaper},
      {"horizon", "T", "stop at this time (profile units); default: run the trace to its end",
       "inf", kPaper},
      {"time-scale", "X", "profile time units per trace second", "1", kPaper},
      {"gpu-scale", "X", "multiply the trace's worker counts (replaying a larger cluster's trace)",
       "1", kPaper},
      {"beta-rule", "R", "work, slack or distribution", "work", kPaper},
      {"steps-rule", "R", "auto, iterations, work or fixed", "auto", kPaper},
      {"iteration-scale", "X", "N = iterations × X (steps-rule iterations)", "1", kPaper},
      {"threads", "N", "worker threads", "", kPaper},
      {"out", "DIR", "write episodes/summary CSV+JSON, jobs.csv, occupancy.csv and plots into DIR",
       "", kPaper},
  };
}

// pacml replay's options, the three lists above in --help order: declared
// from this one table, and an option given to the replay it does not apply
// to is refused from it too (check_applies).
const std::vector<ReplayOption>& replay_options() {
  static const std::vector<ReplayOption> options = [] {
    std::vector<ReplayOption> all = trace_options();
    for (const auto& part : {gpu_replay_options(), paper_replay_options()})
      all.insert(all.end(), part.begin(), part.end());
    return all;
  }();
  return options;
}

void declare_options(Args& args) {
  for (const ReplayOption& o : replay_options()) {
    const std::string only = o.applies == kPaper ? " [--world paper]"
                             : o.applies == kGpu ? " [world gpu]"
                                                 : "";
    if (*o.metavar)
      args.option(o.name, o.metavar, o.help + only, o.default_value);
    else
      args.flag(o.name, o.help + only);
  }
}

// The replay the command line asks for: --world, or its older name --profile
// (physical = gpu, reference = paper). An experiment file is the paper's
// simulator's (its profile must be reference: see load_paper_spec).
Applies which_replay(const Args& args) {
  if (args.has("experiment")) {
    if (args.has("profile") || args.has("world"))
      throw InputError(args.has("world") ? "--world" : "--profile",
                       "the experiment file is the paper world's and gives its profile; give "
                       "one or the other");
    return kPaper;
  }
  return world_from_options(args) == World::kPaper ? kPaper : kGpu;
}

void check_applies(const Args& args, Applies replay) {
  for (const ReplayOption& o : replay_options()) {
    const bool given = *o.metavar ? args.has(o.name) : args.is_set(o.name);
    if ((o.applies & replay) || !given) continue;
    std::string why = o.applies == kGpu
                          ? "applies to the GPU replay (world gpu, the default), not to "
                            "the paper's simulator (--world paper)"
                          : "applies to the paper's simulator (--world paper), not to the "
                            "GPU replay (world gpu, the default)";
    if (*o.instead) why += std::string("; this one takes ") + o.instead;
    throw InputError(std::string("--") + o.name, why);
  }
}

std::map<std::string, std::string> parse_map_option(const Args& args) {
  std::map<std::string, std::string> out;
  if (args.has("map"))
    for (const std::string& pair : split_list(args.get("map"))) {
      const size_t eq = pair.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == pair.size())
        throw InputError("--map", "expected NAME=MODEL, got '" + pair + "'");
      out[pair.substr(0, eq)] = pair.substr(eq + 1);
    }
  return out;
}

// The GPU replay's record mapping (sim/gpu/trace.h) from the options the
// two replays share.
gpu::TraceMapping gpu_mapping(const Args& args) {
  gpu::TraceMapping m;
  m.model_map = parse_map_option(args);
  m.unknown_model = args.get("unknown-model");
  if (m.unknown_model.empty())
    throw InputError("--unknown-model", "must be reject, skip or a model name");
  if (args.has("models")) m.models = split_list(args.get("models"));
  m.steps = args.get_long("steps", 1, 1000000000);
  m.fallback_beta = sim::BetaSpec::parse(args.get("beta-fallback"), "--beta-fallback");
  m.seed = static_cast<std::uint64_t>(args.get_long("seed", 0, 1L << 62));
  return m;
}

// The experiment file's spec, or one from the options.
sim::ExperimentSpec load_paper_spec(const Args& args) {
  sim::ExperimentSpec spec;
  if (!args.has("experiment")) {
    spec.name = "replay";
    spec.profile = "reference";
    spec.topology = RampTopology::parse(args.get("topology"), "--topology").params();
    spec.steps = static_cast<int>(args.get_long("steps", 1, 1000000000));
    return spec;
  }
  spec = sim::load_experiment_file(args.get("experiment"));
  if (spec.profile != "reference")
    throw InputError(args.get("experiment"),
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
sim::TraceMapping paper_trace_mapping(const Args& args) {
  sim::TraceMapping m;
  m.base_dir = ".";
  m.model_map = parse_map_option(args);
  m.unknown_model = args.get("unknown-model");
  if (args.has("models")) m.models = split_list(args.get("models"));
  m.time_scale = args.get_double("time-scale");
  m.gpu_scale = args.get_double("gpu-scale");
  m.beta_rule = args.get("beta-rule");
  m.steps_rule = args.get("steps-rule");
  m.iteration_scale = args.get_double("iteration-scale");
  if (args.has("max-jobs")) m.max_jobs = args.get_long("max-jobs", 0, 1L << 40);
  m.validate("pacml replay");
  return m;
}

// The experiment the paper's simulator replays: the trace as its workload,
// under the policies, seeds and horizon of the options.
sim::ExperimentSpec paper_replay_spec(const Args& args) {
  sim::ExperimentSpec spec = load_paper_spec(args);
  spec.workload_type = "trace";
  spec.trace_path = args.positionals()[0];
  spec.trace_format = sim::parse_trace_format(args.get("format"), "--format");
  spec.mapping = paper_trace_mapping(args);
  spec.skip_bad = args.is_set("skip-bad-lines");
  spec.betas = {sim::BetaSpec::parse(args.get("beta-fallback"), "--beta-fallback")};
  if (args.has("policies"))
    spec.policies = sim::split_policy_list(args.get("policies"), "--policies");
  else if (!args.has("experiment"))
    spec.policies = {"para_max", "para_min", "sequential", "min_feasible"};
  for (const std::string& p : spec.policies) sim::check_policy_name(p, "--policies");
  spec.seeds = sim::parse_seed_list(args.get("seeds"), "--seeds");
  const std::string h = args.get("horizon");
  spec.horizon = h == "inf" || h == "none" ? sim::kInfiniteHorizon : args.get_double("horizon");
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
sim::Evaluation run_paper_replay(const Args& args, const sim::Experiment& experiment) {
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
  sim::Evaluation evaluation = sim::run_evaluation(experiment, experiment.grid(), options);
  if (args.has("out")) {
    jobs.close();
    timeline.close();
    std::cerr << sim::write_evaluation_outputs(args.get("out"), evaluation.episodes,
                                               args.is_set("no-plots") ? nullptr : &evaluation.plot)
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

int replay_on_paper_simulator(const Args& args) {
  const sim::ExperimentSpec spec = paper_replay_spec(args);
  sim::Experiment experiment(spec);
  if (!args.is_set("json")) print_trace_reports(experiment, spec.trace_format);
  const sim::Evaluation evaluation = run_paper_replay(args, experiment);
  const std::vector<sim::GroupSummary> groups = sim::summarize(evaluation.episodes);
  if (args.is_set("json")) {
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
  args.positional("TRACE", "trace file (.gz is decompressed)");
  declare_options(args);
  if (!args.parse(argv)) return 0;
  if (args.positionals().size() != 1)
    throw InputError("pacml replay", "give exactly one trace file");
  if (!args.has("format"))
    throw InputError("--format", "required: elasticflow, swf, sacct, squeue-json or pacml-log");
  const Applies replay = which_replay(args);
  check_applies(args, replay);
  if (replay == kGpu) return replay_on_gpus(args, gpu_mapping(args));
  return replay_on_paper_simulator(args);
}

}  // namespace

PACML_COMMAND("replay",
              "replay a job trace (ElasticFlow, SWF, sacct, squeue --json, pacml-log) on GPUs "
              "(or the paper's simulator) under policies",
              run_replay);

}  // namespace pacml::cli
