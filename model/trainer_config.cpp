// The PPO trainer's config (core/config/train_config.h) from YAML: the key
// tables shared with the pacml command (core/config/train_config_keys.h)
// read it, and this checks what needs the simulator (the experiment's path,
// the β distributions). Kept apart from the training loop because it needs
// neither LibTorch nor the simulator's episodes.
#include "model/trainer.h"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "core/config/train_config_keys.h"
#include "core/policy/baselines.h"
#include "core/util/error.h"
#include "core/util/yaml_input.h"
#include "sim/engine/beta_distribution.h"
#include "sim/workload/paths.h"

namespace pacml::model {

namespace {

void check_version(const YAML::Node& r, const std::string& source) {
  check_train_config_version(r, source);
  if (r["world"] && yaml_scalar(r["world"], source, "world") != "paper")
    throw InputError(yaml_where(source, r["world"]),
                     "this is the PAC-ML (paper-world) trainer's config; 'world: gpu' configs "
                     "are read by the GPU trainer (model/gpu/trainer.h)");
}

// What the key table leaves to the trainer, which knows the simulator: the
// experiment's file from the config's directory, and the β distributions.
void check_episodes(const YAML::Node& r, const std::string& source, TrainConfig& c) {
  if (r["experiment"] && c.experiment != "default" && c.experiment.front() != '/')
    c.experiment = sim::directory_of(source) + "/" + c.experiment;
  if (r["betas"])
    for (const auto& b : c.betas) sim::BetaSpec::parse(b, yaml_where(source, r["betas"]));
}

}  // namespace

TrainConfig parse_train_config(const std::string& yaml_text, const std::string& source) {
  std::istringstream in(yaml_text);
  const YAML::Node root = parse_yaml(in, source);
  return convert_yaml(root, source, [&](const YAML::Node& r) {
    TrainConfig c;
    c.source = source;
    const BoundSettings<TrainConfig>& keys = train_keys();
    keys.table().check_known(r, source);
    check_version(r, source);
    keys.read(r, source, c);
    check_episodes(r, source, c);
    return c;
  });
}

TrainConfig load_train_config(const std::string& path) {
  return parse_train_config(read_input_file(path), path);
}

}  // namespace pacml::model
