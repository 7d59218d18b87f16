// pacml-train: the LibTorch trainer behind `pacml train` (a separate program
// so that LibTorch stays out of the pacml binary and the Slurm plugin).
#include <iostream>
#include <optional>

#include "core/util/args.h"
#include "core/util/error.h"
#include "core/util/yaml_input.h"
#include "model/gpu/trainer.h"
#include "model/trainer.h"

namespace {

using namespace pacml;

// pacml-train's options, which CLI11 fills; the overrides stay unset unless given.
struct TrainCli {
  std::optional<std::string> config, out;
  bool resume = false;
  std::optional<long> max_updates;
  std::optional<double> time_limit_minutes;
  std::optional<int> workers;
  bool progress = false, no_progress = false, quiet = false, pin_threads = false;
  int progress_mode() const { return progress ? 1 : no_progress ? 0 : -1; }
};

void declare_options(Args& a, TrainCli& o) {
  a.bind("config", "FILE", "training config (YAML, see contrib/train/README.md)", o.config)
      .bind("out", "DIR", "output directory (created)", o.out)
      .bind_flag("resume", "continue from DIR/checkpoint.pacw if present", o.resume)
      .bind("max-updates", "N",
            "stop after N PPO updates, or N iterations of the GPU trainer (overrides the "
            "config)",
            o.max_updates, 0, 1L << 40)
      .bind("time-limit", "MIN", "stop after MIN minutes of training (overrides the config)",
            o.time_limit_minutes)
      .bind("workers", "N", "rollout threads (overrides the config; results do not change)",
            o.workers, 1, 256)
      .bind_flag("progress", "always draw the progress bar", o.progress)
      .bind_flag("no-progress", "never draw the progress bar", o.no_progress)
      .bind_flag("quiet", "no status lines", o.quiet)
      .bind_flag("pin-threads", "pin rollout thread i to core i with hwloc (results do not change)",
                 o.pin_threads);
}

// `world: gpu`: the GPU policy's imitation trainer (model/gpu/trainer.h).
int train_gpu_policy(const TrainCli& o, const std::string& path, const std::string& text) {
  if (o.resume)
    throw InputError("--resume",
                     "the GPU trainer has no checkpoints; rerun it (it is "
                     "deterministic)");
  const gpu::TrainConfig config = gpu::parse_train_config(text, path);
  gpu::TrainOptions opt;
  opt.out_dir = *o.out;
  if (o.max_updates) opt.iterations = *o.max_updates;
  if (o.time_limit_minutes) opt.time_limit_minutes = *o.time_limit_minutes;
  if (o.workers) opt.workers = *o.workers;
  opt.progress = o.progress_mode();
  opt.verbose = !o.quiet;
  const gpu::TrainSummary s = gpu::train(config, opt);
  std::cout << "iterations " << s.iterations << "\ndecisions " << s.decisions << "\nwall_seconds "
            << s.wall_seconds << "\nbest_validation_met " << s.best_validation
            << "\nvalidation_min_feasible_met " << s.validation_min_feasible
            << "\nvalidation_teacher_met " << s.validation_teacher << "\nfinal " << s.final_weights
            << "\nbest " << s.best_weights << "\n";
  return 0;
}

// The paper world's PPO trainer (model/trainer.h).
int train_paper_policy(const TrainCli& o, const std::string& path, const std::string& text) {
  const model::TrainConfig config = model::parse_train_config(text, path);
  model::TrainOptions opt;
  opt.out_dir = *o.out;
  opt.resume = o.resume;
  if (o.max_updates) opt.max_updates = *o.max_updates;
  if (o.time_limit_minutes) opt.time_limit_minutes = *o.time_limit_minutes;
  if (o.workers) opt.workers = *o.workers;
  opt.progress = o.progress_mode();
  opt.verbose = !o.quiet;
  opt.pin_threads = o.pin_threads;
  const model::TrainSummary s = model::train(config, opt);
  std::cout << "updates " << s.updates << "\nenv_steps " << s.env_steps << "\nwall_seconds "
            << s.wall_seconds << "\nsteps_per_second " << s.steps_per_second
            << "\nbest_eval_blocking " << s.best_eval_blocking << "\nfinal " << s.final_weights
            << "\nbest " << s.best_weights << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace pacml;
  pacml::model::tune_allocator();
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    Args a("pacml train --config FILE --out DIR [options]",
           "Trains the PAC-ML policy (GNN + PPO with GAE) in pacml's simulator: parallel rollouts "
           "over the experiment's β distributions, periodic greedy evaluation against the "
           "baselines, learning curve (curve.csv, curve.png), checkpoints (resume with --resume) "
           "and weights files (best.pacw, final.pacw) usable as pacml:PATH. A config with "
           "'world: gpu' trains the GPU policy instead (imitation of a searched admission rule "
           "with DAgger on fitted-workload replays; --max-updates caps its iterations). Configs "
           "live in contrib/train/.");
    TrainCli o;
    declare_options(a, o);
    if (!a.parse(args)) return 0;
    if (!o.config) throw InputError("pacml train", "--config FILE is required");
    if (!o.out) throw InputError("pacml train", "--out DIR is required");
    const std::string text = read_input_file(*o.config);
    if (gpu::train_config_world(text, *o.config) == World::kGpu)
      return train_gpu_policy(o, *o.config, text);
    return train_paper_policy(o, *o.config, text);
  } catch (const InputError& e) {
    std::cerr << "pacml train: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "pacml train: internal error: " << e.what() << "\n";
    return 1;
  }
}
