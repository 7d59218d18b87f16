// pacml evaluate: the (policy × β distribution × seed) grid of an experiment,
// with a table of mean ± 95% CI, JSON, CSV, plots, shards and merging.
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/gpu/policy.h"
#include "core/util/args.h"
#include "core/util/error.h"
#include "sim/cli/command.h"
#include "sim/cli/list_option.h"
#include "sim/engine/policy_factory.h"
#include "sim/experiment/blocking_bound.h"
#include "sim/experiment/evaluation.h"
#include "sim/gpu/evaluation.h"
#include "sim/report/csv.h"
#include "sim/report/text_table.h"
#include "sim/workload/paths.h"

namespace pacml::cli {
namespace {

// `bounds` (from --bound) follow the policies: a row of their own in the
// text, objects with "bound" instead of "policy" in the JSON array.
void print_summary(const std::vector<sim::EpisodeStats>& episodes, bool json,
                   const std::string& unit, const std::vector<sim::BoundSummary>& bounds = {}) {
  const std::vector<sim::GroupSummary> groups = sim::summarize(episodes);
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const sim::GroupSummary& g : groups) {
      nlohmann::json o = sim::summary_to_json(g);
      for (const sim::BoundSummary& b : bounds)
        if (b.beta_dist == g.beta_dist) {
          o["unservable_rate_mean"] = b.rate.mean;
          o["unservable_rate_ci95"] = b.rate.ci95;
        }
      j.push_back(o);
    }
    for (const sim::BoundSummary& b : bounds) j.push_back(sim::bound_summary_to_json(b));
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << sim::format_summary_tables(groups, unit);
    if (!bounds.empty()) std::cout << "\n" << sim::format_bound_table(bounds);
  }
}

// The options, which CLI11 fills (declare_options).
struct EvaluateOptions {
  std::vector<std::string> files;  // EXPERIMENT.yaml, or the shard files with --merge
  std::optional<std::string> policies;
  std::optional<std::string> seeds;
  std::optional<std::string> beta_dists;
  std::optional<int> threads;
  std::optional<std::string> shard;
  std::optional<std::string> out;
  bool bound = false, jobs_csv = false, decision_mix = false, no_plots = false;
  bool progress = false, quiet = false, merge = false, json = false;
};

int run_merge(const EvaluateOptions& o) {
  const std::vector<std::string>& files = o.files;
  const sim::MergedShards merged = sim::merge_shard_files(files);
  if (!merged.missing.empty())
    std::cerr << "pacml evaluate --merge: warning: " << merged.missing.size() << " of "
              << merged.grid_size << " grid cells are missing (first missing cell "
              << merged.missing.front() << "); the summary covers the cells present\n";
  if (o.out) std::cerr << sim::write_evaluation_outputs(*o.out, merged.episodes, nullptr) << "\n";
  if (!o.json)
    std::cout << "experiment " << merged.experiment << ": " << merged.episodes.size()
              << " episodes from " << files.size() << " shard files\n\n";
  print_summary(merged.episodes, o.json, merged.time_unit);
  return merged.missing.empty() ? 0 : 3;
}

// A fitted-workload experiment: GPU policies × admission modes × seeds on a
// GPU cluster (sim/gpu/evaluation.h). The paper's grid options
// have no meaning there and are refused rather than ignored.
int run_fitted_evaluation(const EvaluateOptions& o, sim::ExperimentSpec spec) {
  auto refuse = [](const std::string& option) {
    throw InputError("--" + option,
                     "applies to the paper's experiments, not to a fitted-workload one");
  };
  // One thread: the default experiment's 100 replays take about a second.
  const std::pair<const char*, bool> paper_only[] = {{"beta-dists", o.beta_dists.has_value()},
                                                     {"shard", o.shard.has_value()},
                                                     {"threads", o.threads.has_value()},
                                                     {"bound", o.bound},
                                                     {"jobs-csv", o.jobs_csv}};
  for (const auto& [option, given] : paper_only)
    if (given) refuse(option);
  if (o.policies) {
    spec.policies = split_list(*o.policies);
    for (const std::string& p : spec.policies)
      gpu::Policy::parse(p, "--policies", sim::model_search_dirs());
  }
  const auto estimator = gpu::fitted_estimator(spec);
  const bool json = o.json;
  if (!json) std::cerr << gpu::describe_experiment(spec, estimator->cluster().summary()) << "\n";
  const gpu::Evaluation evaluation = gpu::run_experiment(spec, estimator);
  if (o.out) std::cerr << gpu::write_outputs(*o.out, evaluation, !o.no_plots) << "\n";
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const gpu::GroupSummary& g : evaluation.groups) j.push_back(gpu::summary_to_json(g));
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cerr << "finished in " << evaluation.wall_seconds << " s\n\n";
  std::cout << "mean ± 95% CI over " << spec.seeds.size() << " seeds\n"
            << gpu::format_table(evaluation.groups);
  if (o.decision_mix)
    std::cout << "\ndecision mix: per job kind, what each policy did (all seeds)\n"
              << gpu::format_decision_mix(evaluation.mix);
  return 0;
}

// --beta-dists: uniform(lo,hi) holds a comma, so the list splits on commas
// outside parentheses.
std::vector<sim::BetaSpec> parse_beta_dists(const std::string& text) {
  std::vector<sim::BetaSpec> betas;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      betas.push_back(sim::BetaSpec::parse(current, "--beta-dists"));
      current.clear();
    } else {
      current += c;
    }
  }
  betas.push_back(sim::BetaSpec::parse(current, "--beta-dists"));
  return betas;
}

// The options that replace a paper-style experiment's policies and β
// distributions.
void apply_grid_options(const EvaluateOptions& o, sim::ExperimentSpec& spec) {
  if (o.policies) {
    spec.policies = sim::split_policy_list(*o.policies, "--policies");
    for (const std::string& p : spec.policies) sim::check_policy_name(p, "--policies");
  }
  if (o.beta_dists) spec.betas = parse_beta_dists(*o.beta_dists);
  if (o.decision_mix)
    throw InputError("--decision-mix", "applies to fitted-workload experiments (GPU counts)");
}

// jobs.csv (--jobs-csv) and occupancy.csv, which --out fills while the
// episodes run; a shard writes neither.
struct EpisodeFiles {
  std::ofstream jobs, timeline;
};

void open_episode_files(const EvaluateOptions& o, bool sharded, EpisodeFiles& files,
                        sim::EvaluationOptions& options) {
  if (!o.out) return;
  sim::make_directories(*o.out);
  if (o.jobs_csv && !sharded) {
    files.jobs.open(*o.out + "/jobs.csv", std::ios::binary);
    if (!files.jobs) throw InputError(*o.out + "/jobs.csv", "cannot write the file");
    options.jobs_csv = &files.jobs;
  }
  if (!sharded) {
    files.timeline.open(*o.out + "/occupancy.csv", std::ios::binary);
    if (!files.timeline) throw InputError(*o.out + "/occupancy.csv", "cannot write the file");
    options.timeline_csv = &files.timeline;
  }
}

// A shard's episodes as JSON for --merge: into DIR/shard-I-of-N.json with
// --out, else on stdout.
void write_shard(const EvaluateOptions& o, const sim::Experiment& experiment, int shard, int shards,
                 const sim::Evaluation& evaluation, size_t episodes) {
  const std::string text = sim::shard_to_json(experiment, shard, shards, evaluation).dump(1) + "\n";
  if (!o.out) {
    std::cout << text;
    return;
  }
  const std::string path =
      *o.out + "/shard-" + std::to_string(shard) + "-of-" + std::to_string(shards) + ".json";
  sim::write_text_file(path, text);
  std::cerr << "wrote " << path << " (" << episodes << " episodes, " << evaluation.wall_seconds
            << " s)\n";
}

// --bound: the blocking no policy avoids, per β distribution (and bounds.csv with --out).
std::vector<sim::BoundSummary> blocking_bounds(const EvaluateOptions& o,
                                               const sim::Experiment& experiment,
                                               const sim::EvaluationOptions& options) {
  const std::vector<sim::EpisodeBound> bounds =
      sim::experiment_bounds(experiment, sim::evaluation_threads(experiment, options));
  if (o.out) {
    std::ostringstream csv;
    sim::write_bounds_csv(csv, bounds);
    sim::write_text_file(*o.out + "/bounds.csv", csv.str());
  }
  return sim::summarize_bounds(bounds);
}

// A paper-style experiment: every (policy, β distribution, seed) episode of
// the grid, or of one shard of it.
int run_paper_evaluation(const EvaluateOptions& o, sim::ExperimentSpec spec) {
  apply_grid_options(o, spec);
  int shard = 0, shards = 1;
  if (o.shard) std::tie(shard, shards) = sim::parse_shard(*o.shard, "--shard");
  sim::Experiment experiment(spec);
  const std::vector<sim::GridCell> cells = experiment.grid(shard, shards);
  sim::EvaluationOptions options;
  if (o.threads) options.threads = *o.threads;
  options.progress = o.quiet ? 0 : o.progress ? 1 : -1;
  const bool sharded = o.shard.has_value();
  if (sharded && o.bound)
    throw InputError("--bound", "not with --shard (compute the bound on the whole experiment)");
  EpisodeFiles files;
  open_episode_files(o, sharded, files, options);
  options.keep_plot_data = !sharded;
  if (!o.json)
    std::cerr << experiment.describe() << "\n"
              << cells.size() << " episodes (" << spec.policies.size() << " policies × "
              << spec.betas.size() << " β distributions × " << spec.seeds.size() << " seeds"
              << (sharded ? ", shard " + *o.shard : std::string()) << ")\n";
  const sim::Evaluation evaluation = sim::run_evaluation(experiment, cells, options);
  if (sharded) {
    write_shard(o, experiment, shard, shards, evaluation, cells.size());
    return 0;
  }
  if (o.out) {
    files.jobs.close();
    files.timeline.close();
    std::cerr << sim::write_evaluation_outputs(*o.out, evaluation.episodes,
                                               o.no_plots ? nullptr : &evaluation.plot)
              << "\n";
  }
  if (!o.json) std::cerr << "finished in " << evaluation.wall_seconds << " s\n\n";
  std::vector<sim::BoundSummary> bound_summaries;
  if (o.bound) bound_summaries = blocking_bounds(o, experiment, options);
  print_summary(evaluation.episodes, o.json, experiment.estimator()->profile().time_unit,
                bound_summaries);
  return 0;
}

void declare_options(Args& args, EvaluateOptions& o) {
  args.bind_positionals("EXPERIMENT.yaml",
                        "experiment file (default: built-in default experiment); with --merge, "
                        "the shard files",
                        o.files)
      .bind("policies", "P1,P2", "policies to evaluate instead of the experiment's", o.policies)
      .bind("seeds", "N|LIST", "seeds: N (0..N-1), a list 3,5,8 or a range 10..19", o.seeds)
      .bind("beta-dists", "B1,B2",
            "β distributions instead of the experiment's (A,B,C,D,uniform(lo,hi),...)",
            o.beta_dists)
      .bind("threads", "N", "worker threads (default: the experiment's, else all cores)", o.threads,
            1, 1024)
      .bind("shard", "I/N", "run only slice I of N (0-based) and write it as JSON", o.shard)
      .bind("out", "DIR", "write CSV/JSON/plots (or the shard file) into DIR", o.out)
      .bind_flag("bound",
                 "also compute the lower bound on blocking: the share of jobs no action serves "
                 "even on an empty cluster (with --out: bounds.csv)",
                 o.bound)
      .bind_flag("jobs-csv", "with --out: also write jobs.csv (one row per job of every episode)",
                 o.jobs_csv)
      .bind_flag("decision-mix",
                 "fitted-workload experiments: also print what each policy decided per job kind "
                 "(share not started, share met, GPUs; --out writes decision_mix.csv either way)",
                 o.decision_mix)
      .bind_flag("no-plots", "do not draw PNG plots", o.no_plots)
      .bind_flag("progress", "always draw the progress bar (default: only on a terminal)",
                 o.progress)
      .bind_flag("quiet", "no progress bar", o.quiet)
      .bind_flag("merge", "combine shard files given as arguments", o.merge)
      .bind_flag("json", "print one JSON array (an object per policy and β distribution)", o.json);
}

int run_evaluate(const std::vector<std::string>& argv) {
  Args args(
      "pacml evaluate [EXPERIMENT.yaml] [--policies P1,P2] [--seeds N] [--json] [--shard I/N] "
      "[--out DIR]\n"
      "       pacml evaluate --merge SHARD.json...",
      "Runs an experiment (the built-in default experiment when no file is given). A "
      "fitted-workload experiment (workload: {kind: fitted, ...}; the default is one) replays "
      "jobs drawn from a fitted workload on a GPU cluster under every GPU policy and admission "
      "mode over seeds, one thread, and prints the deadline-met rate, unservable share, GPU-hours "
      "per met deadline, utilisation, queueing delay and GPUs per job, mean ± 95% CI; --out DIR "
      "writes runs.csv, summary.csv, summary.json and PNG bar charts. A paper-style experiment: "
      "every (policy, β distribution, seed) episode "
      "on all cores, printing blocking rate mean ± 95% CI per "
      "policy and β distribution, plus throughput, JCT and blocking by cause. --out DIR writes "
      "episodes.csv, summary.csv, summary.json, occupancy.csv, jobs.csv (with --jobs-csv) and PNG "
      "plots "
      "(gnuplot). --shard I/N runs the I-th of N deterministic slices (cells with index mod N = I) "
      "and "
      "writes them as JSON for --merge. --bound adds the blocking no policy can avoid: jobs whose "
      "deadline no degree meets (or that cannot finish by the horizon) even on an empty "
      "cluster.");
  EvaluateOptions o;
  declare_options(args, o);
  if (!args.parse(argv)) return 0;
  if (o.merge) return run_merge(o);
  if (o.files.size() > 1)
    throw InputError("pacml evaluate", "give at most one experiment file (did you mean --merge?)");
  sim::ExperimentSpec spec =
      o.files.empty() ? sim::default_experiment() : sim::load_experiment_file(o.files[0]);
  if (o.seeds) spec.seeds = sim::parse_seed_list(*o.seeds, "--seeds");
  if (spec.world == World::kGpu) return run_fitted_evaluation(o, spec);
  return run_paper_evaluation(o, std::move(spec));
}

}  // namespace

PACML_COMMAND("evaluate", "evaluate policies over an experiment's β distributions and seeds",
              run_evaluate);

}  // namespace pacml::cli
