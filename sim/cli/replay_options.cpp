#include "sim/cli/replay_options.h"

#include <functional>
#include <vector>

#include "core/util/error.h"
#include "sim/cli/list_option.h"

namespace pacml::cli {
namespace {

// Which of the two replays an option means something to.
enum Applies : unsigned { kPaper = 1, kGpu = 2, kBoth = kPaper | kGpu };

struct ReplayOption;
// Declares one option on Args, bound to its member of ReplayOptions.
using Binder = std::function<void(Args&, ReplayOptions&, const ReplayOption&, const std::string&)>;

struct ReplayOption {
  const char* name;
  const char* metavar;  // "" for a flag
  const char* help;
  Applies applies;
  Binder bind;
  const char* instead = "";  // the other replay's option for the same thing
};

// Binders for the member types of ReplayOptions.
template <class M>
Binder text(M ReplayOptions::*member) {
  return [member](Args& args, ReplayOptions& o, const ReplayOption& d, const std::string& help) {
    args.bind(d.name, d.metavar, help, o.*member);
  };
}

// An optional text whose absence means `default_text` (said in --help).
Binder text_or(std::optional<std::string> ReplayOptions::*member, std::string default_text) {
  return [member, default_text](Args& args, ReplayOptions& o, const ReplayOption& d,
                                const std::string& help) {
    args.bind(d.name, d.metavar, help, o.*member, default_text);
  };
}

template <class M>
Binder integer(M ReplayOptions::*member, long lo, long hi) {
  return [member, lo, hi](Args& args, ReplayOptions& o, const ReplayOption& d,
                          const std::string& help) {
    args.bind(d.name, d.metavar, help, o.*member, lo, hi);
  };
}

Binder number(double ReplayOptions::*member) {
  return [member](Args& args, ReplayOptions& o, const ReplayOption& d, const std::string& help) {
    args.bind(d.name, d.metavar, help, o.*member);
  };
}

Binder flag(bool ReplayOptions::*member) {
  return [member](Args& args, ReplayOptions& o, const ReplayOption& d, const std::string& help) {
    args.bind_flag(d.name, help, o.*member);
  };
}

template <class M, class Parse>
Binder parsed(M ReplayOptions::*member, Parse parse, std::string default_text) {
  return [member, parse, default_text](Args& args, ReplayOptions& o, const ReplayOption& d,
                                       const std::string& help) {
    args.bind_parsed(d.name, d.metavar, help, o.*member, parse, default_text);
  };
}

std::optional<sim::TraceFormat> parse_format(const std::string& text, const std::string& where) {
  return sim::parse_trace_format(text, where);
}

// --world and --profile, as pacml estimate declares them.
void bind_world(Args& args, ReplayOptions& o, const ReplayOption&, const std::string& help) {
  add_world_option(args, o.world, help);
}
void bind_profile(Args& args, ReplayOptions& o, const ReplayOption&, const std::string&) {
  add_profile_option(args, o.world);
}

// The options of the trace, its mapping and the policies, most of which both
// replays take (the first part of replay_options()).
std::vector<ReplayOption> trace_options() {
  return {
      {"format", "F",
       "elasticflow, swf, sacct (--parsable2 with header, or --json), squeue-json, or pacml-log "
       "(the Slurm plugin's decision log)",
       kBoth, parsed(&ReplayOptions::format, parse_format, "")},
      {"world", "W",
       "gpu: on GPUs with the physical model; paper: on the paper's simulator (its reference "
       "profile)",
       kBoth, bind_world},
      {"profile", "P", "the name --world had before: physical = gpu, reference = paper", kBoth,
       bind_profile},
      {"topology", "CxRxS",
       "the paper's RAMP shape; world gpu: the paper's cluster of that shape, one A100 per "
       "server, unless --cluster",
       kBoth, text_or(&ReplayOptions::topology, "4x4x2")},
      {"cluster", "FILE|NAME",
       "the GPU cluster instead of the paper's (contrib/clusters/*.yaml or a preset: "
       "dgx-a100-4x8, dgx-a100-16x8, ramp-a100-16x8, ...)",
       kGpu, text(&ReplayOptions::cluster)},
      {"policies", "P1,P2",
       "policies to replay. Physical (default requested,min_feasible,para_max): requested, "
       "min_feasible, para_max, fixed:K, random, capped:X or pacml:MODEL (the learned GPU policy, "
       "pacml:default). Reference (default para_max,para_min,sequential,min_feasible): the "
       "paper's",
       kBoth, text(&ReplayOptions::policies)},
      {"seeds", "N|LIST", "seeds: N (0..N-1) or a list (random policies and fallback β draws)",
       kPaper, text(&ReplayOptions::seeds), "--seed"},
      {"seed", "S", "the seed of the random policy and the fallback β draws", kGpu,
       integer(&ReplayOptions::seed, 0, 1L << 62), "--seeds"},
      {"map", "NAME=MODEL,...", "map trace model names to zoo models or graph files", kBoth,
       text(&ReplayOptions::map)},
      {"unknown-model", "RULE",
       "a model pacml does not know: reject (file:line), skip (counted), or a model to use instead",
       kBoth, text(&ReplayOptions::unknown_model)},
      {"models", "G1,G2", "models for jobs without one (SWF, Slurm): chosen by executable/job id",
       kBoth, text(&ReplayOptions::models)},
      {"beta-fallback", "B", "β distribution for jobs whose requirement the trace does not give",
       kBoth, text(&ReplayOptions::beta_fallback)},
      {"steps", "N", "N (iterations) for jobs the trace gives none", kBoth,
       integer(&ReplayOptions::steps, 1, 1'000'000'000)},
      {"max-jobs", "N", "replay only the first N jobs", kBoth,
       integer(&ReplayOptions::max_jobs, 0, 1L << 40)},
      {"skip-bad-lines", "", "skip malformed lines (counted) instead of failing", kBoth,
       flag(&ReplayOptions::skip_bad_lines)},
      {"no-plots", "", "do not draw PNG plots (the GPU replay draws none)", kBoth,
       flag(&ReplayOptions::no_plots)},
      {"json", "", "print one JSON object (trace and mapping report + summary array)", kBoth,
       flag(&ReplayOptions::json)},
  };
}

// The options only the GPU replay takes.
std::vector<ReplayOption> gpu_replay_options() {
  return {
      {"jobs-csv", "FILE",
       "write one row per job and policy: policy, admission, id, the GPUs the trace asked for "
       "(requested), the GPUs it ran on (0: never started), start, end, met",
       kGpu, text(&ReplayOptions::jobs_csv)},
      {"throughput-table", "DIR",
       "measured iterations/s per model (ElasticFlow's MODEL.csv format)", kGpu,
       text(&ReplayOptions::throughput_table)},
      {"admission", "MODE", "immediate (start or block), queue (wait; as Slurm), or both", kGpu,
       parsed(&ReplayOptions::admissions, gpu::parse_admissions, "queue")},
      {"order", "ORDER", "queue admission: edf or fifo", kGpu,
       parsed(&ReplayOptions::order, gpu::parse_queue_order, "edf")},
      {"hindsight", "N",
       "also a search teacher that knows the trace: at each decision every action the learned "
       "policy could take is tried, followed by the base (--hindsight-base) for the next N "
       "arrivals, and the best kept",
       kGpu, integer(&ReplayOptions::hindsight, 1, 1L << 30)},
      {"hindsight-admission", "MODE",
       "the search's admission: immediate, queue or both (default: immediate, or queue with "
       "--admission queue); a queue decides a waiting job again at each completion, so its "
       "search takes about ten times longer",
       kGpu,
       parsed(
           &ReplayOptions::hindsight_admissions,
           [](const std::string& text, const std::string& where) {
             return std::optional(gpu::parse_admissions(text, where));
           },
           "")},
      {"hindsight-base", "POLICY",
       "the GPU policy the search follows after each action it tries (any --policies name, "
       "e.g. pacml:default: one step of improvement over that policy)",
       kGpu, text_or(&ReplayOptions::hindsight_base, "min_feasible")},
      {"bound", "",
       "also the share of deadlines no policy can exceed on this trace and cluster (a capacity "
       "relaxation, sim/README.md)",
       kGpu, flag(&ReplayOptions::bound)},
      {"decide", "WHEN",
       "queue admission: a waiting job's GPU count is chosen at its start, or once at submission "
       "as the Slurm plugin does (doc/SLURM.md §10)",
       kGpu, parsed(&ReplayOptions::decide, gpu::parse_decision_time, "start")},
  };
}

// The options only the paper's simulator takes.
std::vector<ReplayOption> paper_replay_options() {
  return {
      {"experiment", "FILE",
       "take profile (reference), topology, steps and policies from this experiment file", kPaper,
       text(&ReplayOptions::experiment)},
      {"horizon", "T", "stop at this time (profile units); default: run the trace to its end",
       kPaper, text(&ReplayOptions::horizon)},
      {"time-scale", "X", "profile time units per trace second", kPaper,
       number(&ReplayOptions::time_scale)},
      {"gpu-scale", "X", "multiply the trace's worker counts (replaying a larger cluster's trace)",
       kPaper, number(&ReplayOptions::gpu_scale)},
      {"beta-rule", "R", "work, slack or distribution", kPaper, text(&ReplayOptions::beta_rule)},
      {"steps-rule", "R", "auto, iterations, work or fixed", kPaper,
       text(&ReplayOptions::steps_rule)},
      {"iteration-scale", "X", "N = iterations × X (steps-rule iterations)", kPaper,
       number(&ReplayOptions::iteration_scale)},
      {"threads", "N", "worker threads", kPaper, integer(&ReplayOptions::threads, 1, 1024)},
      {"out", "DIR", "write episodes/summary CSV+JSON, jobs.csv, occupancy.csv and plots into DIR",
       kPaper, text(&ReplayOptions::out)},
  };
}

// pacml replay's options, the three lists above in --help order.
const std::vector<ReplayOption>& replay_options() {
  static const std::vector<ReplayOption> options = [] {
    std::vector<ReplayOption> all = trace_options();
    for (const auto& part : {gpu_replay_options(), paper_replay_options()})
      all.insert(all.end(), part.begin(), part.end());
    return all;
  }();
  return options;
}

}  // namespace

void declare_replay_options(Args& args, ReplayOptions& options) {
  for (const ReplayOption& o : replay_options()) {
    const std::string only = o.applies == kPaper ? " [--world paper]"
                             : o.applies == kGpu ? " [world gpu]"
                                                 : "";
    o.bind(args, options, o, o.help + only);
  }
}

// An experiment file is the paper's simulator's (its profile must be
// reference: see load_paper_spec in cmd_replay.cpp).
Replay which_replay(const ReplayOptions& o) {
  if (o.experiment) {
    if (o.world.given())
      throw InputError(o.world.world ? "--world" : "--profile",
                       "the experiment file is the paper world's and gives its profile; give "
                       "one or the other");
    return Replay::kPaper;
  }
  return chosen_world(o.world) == World::kPaper ? Replay::kPaper : Replay::kGpu;
}

void check_applies(const Args& args, Replay replay) {
  const Applies taken = replay == Replay::kGpu ? kGpu : kPaper;
  for (const std::string& name : args.given())
    for (const ReplayOption& o : replay_options()) {
      if (name != o.name || (o.applies & taken)) continue;
      std::string why = o.applies == kGpu
                            ? "applies to the GPU replay (world gpu, the default), not to "
                              "the paper's simulator (--world paper)"
                            : "applies to the paper's simulator (--world paper), not to the "
                              "GPU replay (world gpu, the default)";
      if (*o.instead) why += std::string("; this one takes ") + o.instead;
      throw InputError("--" + name, why);
    }
}

std::map<std::string, std::string> parse_map_option(const ReplayOptions& options) {
  std::map<std::string, std::string> out;
  if (options.map)
    for (const std::string& pair : split_list(*options.map)) {
      const size_t eq = pair.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == pair.size())
        throw InputError("--map", "expected NAME=MODEL, got '" + pair + "'");
      out[pair.substr(0, eq)] = pair.substr(eq + 1);
    }
  return out;
}

}  // namespace pacml::cli
