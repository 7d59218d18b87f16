// pacml-train: the LibTorch trainer behind `pacml train` (a separate program
// so that LibTorch stays out of the pacml binary and the Slurm plugin).
#include <iostream>

#include "core/util/args.h"
#include "core/util/error.h"
#include "core/util/yaml_input.h"
#include "model/gpu/trainer.h"
#include "model/trainer.h"

namespace {

using namespace pacml;

// `world: gpu`: the GPU policy's imitation trainer (model/gpu/trainer.h).
int train_gpu_policy(const Args& a, const std::string& path, const std::string& text) {
  if (a.is_set("resume"))
    throw InputError("--resume",
                     "the GPU trainer has no checkpoints; rerun it (it is "
                     "deterministic)");
  const gpu::TrainConfig config = gpu::parse_train_config(text, path);
  gpu::TrainOptions opt;
  opt.out_dir = a.get("out");
  if (a.has("max-updates")) opt.iterations = a.get_long("max-updates", 0, 1L << 40);
  if (a.has("time-limit")) opt.time_limit_minutes = a.get_double("time-limit");
  if (a.has("workers")) opt.workers = static_cast<int>(a.get_long("workers", 1, 256));
  opt.progress = a.is_set("progress") ? 1 : a.is_set("no-progress") ? 0 : -1;
  opt.verbose = !a.is_set("quiet");
  const gpu::TrainSummary s = gpu::train(config, opt);
  std::cout << "iterations " << s.iterations << "\ndecisions " << s.decisions << "\nwall_seconds "
            << s.wall_seconds << "\nbest_validation_met " << s.best_validation
            << "\nvalidation_min_feasible_met " << s.validation_min_feasible
            << "\nvalidation_teacher_met " << s.validation_teacher << "\nfinal " << s.final_weights
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
    a.option("config", "FILE", "training config (YAML, see contrib/train/README.md)")
        .option("out", "DIR", "output directory (created)")
        .flag("resume", "continue from DIR/checkpoint.pacw if present")
        .option("max-updates", "N",
                "stop after N PPO updates, or N iterations of the GPU trainer (overrides the "
                "config)")
        .option("time-limit", "MIN", "stop after MIN minutes of training (overrides the config)")
        .option("workers", "N", "rollout threads (overrides the config; results do not change)")
        .flag("progress", "always draw the progress bar")
        .flag("no-progress", "never draw the progress bar")
        .flag("quiet", "no status lines")
        .flag("pin-threads", "pin rollout thread i to core i with hwloc (results do not change)");
    if (!a.parse(args)) return 0;
    if (!a.has("config")) throw InputError("pacml train", "--config FILE is required");
    if (!a.has("out")) throw InputError("pacml train", "--out DIR is required");
    const std::string path = a.get("config");
    const std::string text = read_input_file(path);
    if (gpu::train_config_world(text, path) == World::kGpu) return train_gpu_policy(a, path, text);
    const model::TrainConfig config = model::parse_train_config(text, path);
    model::TrainOptions opt;
    opt.out_dir = a.get("out");
    opt.resume = a.is_set("resume");
    if (a.has("max-updates")) opt.max_updates = a.get_long("max-updates", 0, 1L << 40);
    if (a.has("time-limit")) opt.time_limit_minutes = a.get_double("time-limit");
    if (a.has("workers")) opt.workers = static_cast<int>(a.get_long("workers", 1, 256));
    opt.progress = a.is_set("progress") ? 1 : a.is_set("no-progress") ? 0 : -1;
    opt.verbose = !a.is_set("quiet");
    opt.pin_threads = a.is_set("pin-threads");
    const model::TrainSummary s = model::train(config, opt);
    std::cout << "updates " << s.updates << "\nenv_steps " << s.env_steps << "\nwall_seconds "
              << s.wall_seconds << "\nsteps_per_second " << s.steps_per_second
              << "\nbest_eval_blocking " << s.best_eval_blocking << "\nfinal " << s.final_weights
              << "\nbest " << s.best_weights << "\n";
    return 0;
  } catch (const InputError& e) {
    std::cerr << "pacml train: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "pacml train: internal error: " << e.what() << "\n";
    return 1;
  }
}
