// The built-in default experiment: the text of contrib/experiments/default.yaml
// (tests/sim check that the two stay identical).
#include "core/util/error.h"
#include "sim/experiment/experiment.h"

namespace pacml::sim {

const std::string& default_experiment_yaml() {
  static const std::string text =
      R"PACML_YAML(# pacml's built-in default experiment (`pacml evaluate` with no file runs it;
# this file is the same text). It needs nothing outside the repository: the
# jobs are model-zoo graphs costed on an A100 (physical profile, times in
# seconds), on the paper's 32-server RAMP cluster.
pacml_experiment: 1
name: default
description: >-
  Five zoo models (CNN, transformer, RNN) arriving every 2 s for 2000 s on
  a 4x4x2 RAMP cluster; baselines under the four beta distributions.
profile: physical
topology: 4x4x2
steps: 50
horizon: 2000
workload:
  type: synthetic
  graphs: [resnet50, vgg16, bert-base, gnmt, deepspeech2]
  interarrival: 2
  interarrival_distribution: fixed
beta: [A, B, C, D]
# pacml:default is the shipped learned policy (contrib/models/default.pacw).
policies: [pacml:default, para_max, para_min, random, sequential, fixed:2, min_feasible]
seeds: 10
)PACML_YAML";
  return text;
}

ExperimentSpec default_experiment() {
  // Not checking the policies here: pacml:default resolves where the pacml
  // command looks for models; a library user without them gets the error
  // when the experiment runs that policy.
  return parse_experiment(default_experiment_yaml(), "<built-in default experiment>", ".",
                          /*check_policies=*/false);
}

}  // namespace pacml::sim
