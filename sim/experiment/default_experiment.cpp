// The built-in experiments: the texts of contrib/experiments/default.yaml and
// contrib/experiments/paper-zoo.yaml (tests/sim check that they stay identical).
#include "core/util/error.h"
#include "sim/experiment/experiment.h"

namespace pacml::sim {

const std::string& default_experiment_yaml() {
  static const std::string text =
      R"PACML_YAML(# pacml's built-in default experiment (`pacml evaluate` with no file runs it;
# this file is the same text). It needs nothing outside the repository: the
# cluster preset and the fitted workload are compiled into pacml, and the
# learned GPU policy is contrib/models/default.pacw (installed with pacml).
pacml_experiment: 1
world: gpu   # jobs get GPU counts on a GPU cluster (doc/ARCHITECTURE.md section 2)
name: default
description: >-
  Jobs drawn from a workload fitted to ElasticFlow's traces (cluster01-05:
  model and batch mix, iterations, requested GPUs, deadline = submit + slack x
  the run time on the requested GPUs) arriving at the traces' own rate (load 1,
  about 500 jobs a day, which keeps 128 GPUs over 90% busy) on 128 A100s (16
  servers of 8 on a RAMP network); the learned GPU policy (pacml:default,
  trained on other seeds and cluster sizes) and every baseline, capped:0.3
  among them (the one that may also turn jobs away), with immediate and queue
  admission; 10 seeds of 5000 jobs (about 10 days each).
cluster: ramp-a100-16x8
workload:
  kind: fitted
  params: elasticflow-01-05   # contrib/workloads/elasticflow-01-05.yaml
  load: 1
  jobs: 5000
admission: both
order: edf
# capped:0.3 is min_feasible with a cost cap: like the learned policy it may
# turn a job away. 0.3 is the cap contrib/experiments/heldout.sh chooses on
# contrib/train/gpu-default.yaml's validation scenarios (doc/RESULTS.md §2.2).
policies: [pacml:default, capped:0.3, requested, min_feasible, para_max, fixed:8, random]
seeds: 10
)PACML_YAML";
  return text;
}

const std::string& paper_zoo_experiment_yaml() {
  static const std::string text =
      R"PACML_YAML(# The paper-style experiment on model-zoo graphs: pacml's default experiment
# until issue 15, the one the paper-world learned policy (pacml:paper-zoo) was
# trained on, and what `pacml simulate` with no file runs (built in: this file
# is the same text). It needs nothing outside the repository: the jobs are
# model-zoo graphs costed on an A100 (physical profile, times in seconds), on
# the paper's 32-server RAMP cluster, 50 steps per job, β deadlines.
pacml_experiment: 1
world: paper   # the paper's RAMP episodes (doc/ARCHITECTURE.md section 2)
name: paper-zoo
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
# pacml:paper-zoo is the learned policy trained on it (contrib/models/paper-zoo.pacw).
policies: [pacml:paper-zoo, para_max, para_min, random, sequential, fixed:2, min_feasible]
seeds: 10
)PACML_YAML";
  return text;
}

ExperimentSpec default_experiment() {
  return parse_experiment(default_experiment_yaml(), "<built-in default experiment>", ".");
}

ExperimentSpec paper_zoo_experiment() {
  // Not checking the policies here: pacml:paper-zoo resolves where the pacml
  // command looks for models; a library user without them gets the error
  // when the experiment runs that policy.
  return parse_experiment(paper_zoo_experiment_yaml(), "<built-in paper-zoo experiment>", ".",
                          /*check_policies=*/false);
}

}  // namespace pacml::sim
