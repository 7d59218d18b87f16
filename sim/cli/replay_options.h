// `pacml replay`'s options as one struct, which CLI11 fills (issue 30, item
// 2): the trace and its mapping, which both replays take, then the GPU
// replay's and the paper simulator's own. Each option is declared once, with
// its member, in replay_options.cpp's table, which also says which replay it
// applies to, so one given to the other replay is refused (check_applies).
#pragma once

#include <optional>
#include <string>

#include "core/util/args.h"
#include "sim/cli/world_option.h"
#include "sim/gpu/replay.h"
#include "sim/trace/trace.h"

namespace pacml::cli {

struct ReplayOptions {
  std::string trace;  // TRACE
  // The trace, its mapping and the policies (both replays).
  std::optional<sim::TraceFormat> format;  // required
  WorldOptions world;
  std::optional<std::string> topology;  // default 4x4x2
  std::optional<std::string> policies;  // default: the replay's own list
  std::optional<std::string> map;
  std::string unknown_model = "reject";
  std::optional<std::string> models;
  std::string beta_fallback = "A";
  long steps = 50;
  std::optional<long> max_jobs;
  bool skip_bad_lines = false;
  bool no_plots = false;
  bool json = false;
  // The GPU replay's.
  std::optional<std::string> cluster;
  long seed = 1;
  std::optional<std::string> jobs_csv;
  std::optional<std::string> throughput_table;
  std::vector<gpu::Admission> admissions = {gpu::Admission::kQueue};
  gpu::QueueOrder order = gpu::QueueOrder::kEarliestDeadline;
  std::optional<long> hindsight;
  std::optional<std::vector<gpu::Admission>> hindsight_admissions;
  std::optional<std::string> hindsight_base;  // default min_feasible
  bool bound = false;
  gpu::DecisionTime decide = gpu::DecisionTime::kAtStart;
  // The paper simulator's.
  std::string seeds = "1";
  std::optional<std::string> experiment;
  std::string horizon = "inf";
  double time_scale = 1;
  double gpu_scale = 1;
  std::string beta_rule = "work";
  std::string steps_rule = "auto";
  double iteration_scale = 1;
  std::optional<int> threads;
  std::optional<std::string> out;
};

// Which of the two replays the command line asks for.
enum class Replay { kGpu, kPaper };

// Declares every option on `args`, bound to `options`.
void declare_replay_options(Args& args, ReplayOptions& options);

// --world (or --profile); an experiment file is the paper simulator's.
Replay which_replay(const ReplayOptions& options);

// Refuses an option `args` was given that `replay` does not take.
void check_applies(const Args& args, Replay replay);

// --map NAME=MODEL,...
std::map<std::string, std::string> parse_map_option(const ReplayOptions& options);

}  // namespace pacml::cli
