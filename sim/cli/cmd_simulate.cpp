// pacml simulate: one episode of one policy on one seed.
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "core/util/args.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "sim/cli/command.h"
#include "sim/engine/policy_factory.h"
#include "sim/experiment/experiment.h"
#include "sim/experiment/summary.h"
#include "sim/report/csv.h"
#include "sim/report/text_table.h"

namespace pacml::cli {
namespace {

int run_simulate(const std::vector<std::string>& argv) {
  Args args(
      "pacml simulate [EXPERIMENT.yaml] [--policy P] [--seed S] [--beta-dist A|B|C|D] [--json]",
      "Runs one episode of a paper-style experiment (the built-in paper-zoo experiment, "
      "contrib/experiments/paper-zoo.yaml, when no file is given) "
      "with one policy and one seed, and prints its metrics: blocking rate (by cause), acceptance, "
      "demand throughput, JCT, speed-up and occupancy. Same experiment + seed = identical "
      "results.");
  std::string file;
  std::optional<std::string> policy_name, beta_dist, horizon, jobs_csv, timeline_csv;
  long seed = 0;
  bool json = false;
  args.bind_positional("EXPERIMENT.yaml",
                       "experiment file (default: the built-in paper-zoo experiment)", file, false)
      .bind("policy", "P",
            "policy (default: the experiment's first): para_max, para_min, random, sequential, "
            "fixed:K, min_feasible, pacml:WEIGHTS",
            policy_name)
      .bind("seed", "S", "episode seed", seed, 0, 1L << 62)
      .bind("beta-dist", "B",
            "β distribution (default: the experiment's first): A, B, C, D, uniform(lo,hi), "
            "fixed(v)",
            beta_dist)
      .bind("horizon", "T", "override the horizon (profile time units, or inf)", horizon)
      .bind("jobs-csv", "FILE", "write one CSV row per job", jobs_csv)
      .bind("timeline-csv", "FILE", "write the occupancy over time as CSV", timeline_csv)
      .bind_flag("json", "print one JSON object instead of a table", json);
  if (!args.parse(argv)) return 0;
  sim::ExperimentSpec spec =
      file.empty() ? sim::paper_zoo_experiment() : sim::load_experiment_file(file);
  sim::require_paper_style(spec);
  if (policy_name) spec.policies = {*policy_name};
  sim::check_policy_name(spec.policies.front(), "--policy");
  spec.policies.resize(1);
  if (beta_dist) spec.betas = {sim::BetaSpec::parse(*beta_dist, "--beta-dist")};
  spec.betas.resize(1);
  spec.seeds = {static_cast<std::uint64_t>(seed)};
  if (horizon) {
    spec.horizon = *horizon == "inf" ? sim::kInfiniteHorizon
                                     : parse_finite_double(*horizon, "--horizon", "value");
    if (!(spec.horizon > 0)) throw InputError("--horizon", "must be positive");
    sim::check_episodes_end(spec, "--horizon");
  }
  sim::Experiment experiment(spec);
  const sim::GridCell cell = experiment.grid().front();
  sim::EpisodeTask task = experiment.task(cell, jobs_csv.has_value(), timeline_csv.has_value());
  PolicyPtr policy = sim::make_policy(cell.policy);
  sim::Environment env(task.config);
  sim::EpisodeResult result = sim::run_episode(env, *policy, cell.seed);
  if (jobs_csv) {
    std::ostringstream out;
    sim::write_jobs_csv_header(out);
    sim::write_jobs_csv_rows(out, result.stats, result.jobs);
    sim::write_text_file(*jobs_csv, out.str());
  }
  if (timeline_csv) {
    std::ostringstream out;
    sim::write_timeline_csv_header(out);
    sim::write_timeline_csv_rows(out, result.stats, result.timeline);
    sim::write_text_file(*timeline_csv, out.str());
  }
  const std::string unit = experiment.estimator()->profile().time_unit;
  if (json) {
    nlohmann::json j = sim::episode_to_json(result.stats);
    j["experiment"] = spec.name;
    j["profile"] = spec.profile;
    j["time_unit"] = unit;
    j["wall_seconds"] = result.wall_seconds;
    std::cout << j.dump() << "\n";
  } else {
    std::cout << experiment.describe() << "\n\n" << sim::format_episode(result.stats, unit);
    std::cout << "wall time " << result.wall_seconds << " s\n";
  }
  return 0;
}

}  // namespace

PACML_COMMAND("simulate", "run one episode of an experiment (one policy, one seed)", run_simulate);

}  // namespace pacml::cli
