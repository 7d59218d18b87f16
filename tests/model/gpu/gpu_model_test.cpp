// LibTorch tests of the GPU policy's trainer (model/gpu/torch_network.h,
// model/gpu/trainer.h): the Eigen forward pass (gpu::Network, via
// gpu::LearnedModel) agrees with LibTorch to 1e-5 for decisions of every
// candidate count; a short training is bit-identical for a seed whatever the
// worker count; on a two-model workload whose teacher turns one model away
// and starts the other, the trained network does the same; the config parser
// names file:line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/config/train_config_keys.h"
#include "core/gpu/features.h"
#include "core/gpu/learned_policy.h"
#include "core/inference/weights_file.h"
#include "core/parallel/duration_model.h"
#include "core/parallel/parallel_job.h"
#include "core/parallel/physical_constants.h"
#include "core/parallel/physical_estimator.h"
#include "core/util/error.h"
#include "model/gpu/torch_network.h"
#include "model/gpu/trainer.h"
#include "model/trainer.h"
#include "sim/gpu/trace.h"
#include "tests/model/settings_test_util.h"

namespace pacml {
namespace {

// As the trainer and gpu::LearnedPolicy encode a job's graph.
features::JobFeatures job_features(const ParallelJob& job) {
  const JobGraphPtr graph = make_job_graph(*job.at_batch(job.global_batch()));
  return features::extract_job_features(*graph, EdgeSizeRule::kPhysical);
}

// A decision with `n` candidates and inputs drawn from [0, 1] (action 0's
// row zero, as gpu::decision_features writes it).
gpu::DecisionFeatures synthetic_decision(int n, Rng& rng) {
  gpu::DecisionFeatures f;
  for (int a = 0; a < n; ++a) f.gpus.push_back(a == 0 ? 0 : a * 2);
  f.fewest = n > 1 ? 2 : 0;
  auto draw = [&](std::vector<float>& v, size_t count) {
    for (size_t i = 0; i < count; ++i) v.push_back(static_cast<float>(rng.uniform()));
  };
  draw(f.job, gpu::kJobScalars);
  draw(f.context, gpu::kContextScalars);
  f.actions.assign(gpu::kActionScalars, 0.f);
  draw(f.actions, static_cast<size_t>(n - 1) * gpu::kActionScalars);
  return f;
}

std::string temp_dir(const std::string& name) {
  const char* base = std::getenv("TMPDIR");
  const std::string dir = std::string(base ? base : "/tmp") + "/pacml-gpu-model-test-" + name +
                          "-" + std::to_string(::getpid());
  const std::string cmd = "rm -rf '" + dir + "' && mkdir -p '" + dir + "'";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("cannot create " + dir);
  return dir;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Eigen's logits and value of every decision of `batch` against LibTorch's.
void expect_agreement(const gpu::TorchNetwork& net,
                      const std::vector<features::JobFeatures>& graphs,
                      const gpu::DecisionBatch& batch,
                      const std::vector<gpu::DecisionFeatures>& decisions) {
  const inference::WeightsFile w =
      net.export_weights(gpu::make_metadata(net.architecture(), {{"test", true}}, "test"));
  const gpu::LearnedModel m(inference::parse_weights(inference::serialize_weights(w), "w"), "w");
  std::vector<float> logits, values;
  net.forward(graphs, batch, logits, values);
  size_t offset = 0;
  for (size_t k = 0; k < decisions.size(); ++k) {
    const std::vector<float> e = m.network().embed(graphs[batch.graph[k]]);
    std::vector<float> l;
    float v = 0;
    m.network().score(e, decisions[k], l, &v);
    ASSERT_EQ(l.size(), decisions[k].gpus.size());
    for (size_t a = 0; a < l.size(); ++a) EXPECT_NEAR(l[a], logits[offset + a], 1e-5) << k;
    EXPECT_NEAR(v, values[k], 1e-5) << k;
    offset += l.size();
  }
  EXPECT_EQ(offset, logits.size());
}

TEST(GpuTorchModel, EigenForwardMatchesLibTorch) {
  gpu::JobKinds kinds;
  std::vector<features::JobFeatures> graphs;
  for (auto [model, batch] : {std::pair{"resnet50", 64}, {"bert", 64}, {"vgg16", 128}})
    graphs.push_back(job_features(*kinds.get(model, batch)));
  for (std::uint64_t seed : {1u, 2u}) {
    gpu::Architecture arch;
    if (seed == 2) {  // another shape: three layers, other widths
      arch.graph.module_width = 8;
      arch.graph.layers = {16, 8, 24};
      arch.hidden = 20;
    }
    gpu::TorchNetwork net(arch, seed);
    Rng rng(seed);
    gpu::DecisionBatch batch;
    std::vector<gpu::DecisionFeatures> decisions;
    for (int k = 0; k < 14; ++k) {
      decisions.push_back(synthetic_decision(1 + k % gpu::DecisionBatch::kMaxActions, rng));
      batch.add(k % 3, decisions.back(), static_cast<int>(decisions.back().gpus.size()) - 1,
                static_cast<float>(rng.uniform()));
    }
    expect_agreement(net, graphs, batch, decisions);
    // And after training moved the weights away from their initialisation.
    Rng shuffle(9);
    gpu::TrainParams p;
    p.minibatch = 4;
    p.epochs = 3;
    net.train(graphs, batch, p, shuffle);
    expect_agreement(net, graphs, batch, decisions);
  }
}

TEST(GpuTorchModel, ExportsTheArchitecturesTensorsAndImportsThem) {
  const gpu::Architecture arch;
  gpu::TorchNetwork a(arch, 1), b(arch, 2);
  const auto meta = gpu::make_metadata(arch, {}, "test");
  const inference::WeightsFile wa = a.export_weights(meta);
  const auto shapes = arch.tensor_shapes();
  ASSERT_EQ(wa.tensors.size(), shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    EXPECT_EQ(wa.tensors[i].name, shapes[i].first);
    EXPECT_EQ(wa.tensors[i].shape, shapes[i].second);
  }
  b.import_weights(wa, "wa");
  EXPECT_EQ(inference::serialize_weights(b.export_weights(meta)), inference::serialize_weights(wa));
}

// A workload of two models, 1 GPU each, deadlines easy to meet.
std::string two_model_workload(const std::string& model_a, int batch_a, const std::string& model_b,
                               int batch_b, long iterations) {
  std::ostringstream w;
  w << "pacml_workload: 1\nsource: test\narrivals_per_hour: [";
  for (int h = 0; h < 24; ++h) w << (h ? ", " : "") << 6;
  w << "]\nmodels:\n  - {model: " << model_a << ", batch: " << batch_a << ", share: 0.5}\n"
    << "  - {model: " << model_b << ", batch: " << batch_b << ", share: 0.5}\n"
    << "iterations: {log_mean: " << std::log(static_cast<double>(iterations))
    << ", log_sd: 0.1, min: " << iterations * 4 / 5 << ", max: " << iterations * 5 / 4 << "}\n"
    << "gpus: {1: 1}\nslack: {min: 2, max: 3}\n";
  return w.str();
}

std::string small_config(const std::string& extra) {
  return "pacml_train: 1\n"
         "world: gpu\n"
         "name: test\n"
         "workload: two.yaml\n"
         "load_reference_gpus: 0\n"
         "train: {clusters: [dgx-a100-4x8], loads: [1], admissions: [immediate, queue], "
         "seeds: [1], jobs: 120}\n"
         "validation: {seeds: [7], jobs: 60}\n"
         "optimiser: {epochs: 4, minibatch: 32, lr: 0.003}\n"
         "network: {module_width: 8, layers: [16, 8], hidden: 16}\n" +
         extra;
}

gpu::TrainSummary train_in(const std::string& dir, const std::string& config, int workers) {
  write_file(dir + "/train.yaml", config);
  gpu::TrainOptions opt;
  opt.out_dir = dir + "/out-" + std::to_string(workers);
  opt.workers = workers;
  opt.progress = 0;
  opt.verbose = false;
  return gpu::train(gpu::load_train_config(dir + "/train.yaml"), opt);
}

// Trains on the two-model workload with `extra` config lines on 1 and on 2
// workers and checks that both give the same weights; the 1-worker run.
gpu::TrainSummary same_weights_whatever_the_workers(const std::string& name,
                                                    const std::string& extra) {
  const std::string dir = temp_dir(name);
  write_file(dir + "/two.yaml", two_model_workload("resnet50", 64, "vgg16", 128, 3000));
  const std::string config = small_config(extra);
  const auto one = train_in(dir, config, 1);
  const auto two = train_in(dir, config, 2);
  EXPECT_GT(one.decisions, 0);
  EXPECT_EQ(one.decisions, two.decisions);
  const auto a = inference::read_weights_file(one.final_weights);
  const auto b = inference::read_weights_file(two.final_weights);
  EXPECT_EQ(a.tensors.size(), b.tensors.size());
  for (size_t i = 0; i < std::min(a.tensors.size(), b.tensors.size()); ++i)
    EXPECT_EQ(a.tensors[i].data, b.tensors[i].data) << a.tensors[i].name;
  EXPECT_EQ(one.best_validation, two.best_validation);
  // The weights load as a GPU policy.
  EXPECT_NO_THROW(gpu::LearnedModel::load(one.best_weights));
  return one;
}

TEST(GpuTrainer, SameSeedSameWeightsWhateverTheWorkerCount) {
  const auto one = same_weights_whatever_the_workers(
      "determinism",
      "teacher_caps: [0.002, 0.02, inf]\niterations: 2\ndagger_sample: true\nseed: 5\n");
  EXPECT_EQ(one.iterations, 2);
}

// Learning from the rollout search: it runs, and the same seed gives the
// same weights whatever the worker count.
TEST(GpuTrainer, FromTheRolloutSearchSameWeightsWhateverTheWorkerCount) {
  const auto one = same_weights_whatever_the_workers(
      "rollout-teacher",
      "teacher: rollout\nteacher_lookahead: 20\nteacher_caps: [0.002, 0.02, inf]\n"
      "iterations: 2\nseed: 5\n");
  EXPECT_EQ(one.iterations, 2);
}

// One GPU run of `iterations` steps of `job`, as cluster-hours of `gpus` GPUs.
double cost_on_one_gpu(DurationModel& d, const ParallelJob& job, long iterations) {
  return d.seconds(job, iterations, 1) / (d.cluster_gpus() * 3600.0);
}

TEST(GpuTrainer, LearnsToTurnAwayTheCostlyModelAndStartTheCheapOne) {
  const std::string dir = temp_dir("two-models");
  const long iterations = 2000;
  write_file(dir + "/two.yaml", two_model_workload("vgg16", 256, "resnet50", 64, iterations));
  gpu::JobKinds kinds;
  const ParallelJobPtr costly = kinds.get("vgg16", 256), cheap = kinds.get("resnet50", 64);
  DurationModel d(std::make_shared<const PhysicalEstimator>(load_cluster("dgx-a100-4x8"),
                                                            PhysicalConstants::calibrated()));
  // A cap between the two models' costs (with room for the spread of
  // iterations): the teacher turns every costly job away and starts every
  // cheap one, so only the model tells the two decisions apart.
  const double hi = cost_on_one_gpu(d, *costly, iterations * 4 / 5);
  const double lo = cost_on_one_gpu(d, *cheap, iterations * 5 / 4);
  ASSERT_GT(hi, 2 * lo) << "the two models' costs must be far apart";
  const double cap = std::sqrt(hi * lo);
  const auto summary = train_in(
      dir, small_config("teacher_caps: [" + std::to_string(cap) + "]\niterations: 3\n"), 2);
  const auto model = gpu::LearnedModel::load(summary.final_weights);
  gpu::LearnedPolicy policy(model);
  Rng rng(1);
  // The same moment for a job of each model, on clusters more or less busy.
  for (int free : {32, 20, 9}) {
    int chosen[2];
    for (int m = 0; m < 2; ++m) {
      const ParallelJobPtr job = m == 0 ? costly : cheap;
      gpu::DecisionInput in;
      in.now = 1000;
      in.deadline = in.now + 2.5 * d.seconds(*job, iterations, 1);
      in.free_gpus = free;
      in.cluster_gpus = 32;
      in.gpus_per_server = 8;
      in.free_servers = free / 8;
      in.job = job.get();
      in.startable = [free](int k) { return k >= 1 && k <= free; };
      in.seconds = [&d, job, iterations](int k) { return d.seconds(*job, iterations, k); };
      chosen[m] = policy.decide(in, rng).gpus();
    }
    EXPECT_EQ(chosen[0], gpu::kTurnAway) << "the costly model's job, " << free << " GPUs free";
    EXPECT_GT(chosen[1], 0) << "the cheap model's job, " << free << " GPUs free";
  }
}

std::string parse_error(const std::string& text) {
  try {
    gpu::parse_train_config(text, "cfg.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(GpuTrainer, ConfigErrorsNameFileAndLine) {
  const std::string head = "pacml_train: 1\nworld: gpu\n";
  EXPECT_NE(parse_error(head + "iteratons: 3\n").find("cfg.yaml:3"), std::string::npos)
      << parse_error(head + "iteratons: 3\n");
  EXPECT_NE(parse_error(head + "train:\n  loads: [1]\n  sedes: [1]\n").find("cfg.yaml:5"),
            std::string::npos);
  EXPECT_NE(parse_error(head + "optimiser: {lr: 0.1, epoch: 2}\n").find("cfg.yaml:3"),
            std::string::npos);
  EXPECT_NE(parse_error(head + "teacher_caps: [0.1, -1]\n").find("cfg.yaml:3"), std::string::npos);
  EXPECT_NE(parse_error(head + "train: {admissions: [later]}\n").find("cfg.yaml:3"),
            std::string::npos);
  EXPECT_NE(
      parse_error(head + "train: {seeds: [4]}\nvalidation: {seeds: [4]}\n").find("cfg.yaml:4"),
      std::string::npos);
  EXPECT_NE(parse_error("pacml_train: 1\nworld: moon\n").find("cfg.yaml:2"), std::string::npos);
  EXPECT_NE(parse_error("world: gpu\n").find("pacml_train"), std::string::npos);
  // A GPU config given to the PAC-ML trainer is refused where it says so.
  try {
    model::parse_train_config(head, "cfg.yaml");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cfg.yaml:2"), std::string::npos) << e.what();
  }
  EXPECT_EQ(gpu::train_config_world(head, "cfg.yaml"), World::kGpu);
  EXPECT_EQ(gpu::train_config_world("pacml_train: 1\n", "cfg.yaml"), World::kPaper);
  // The teacher: a choice; the rollout search labels greedy rollouts only.
  EXPECT_EQ(gpu::parse_train_config(head, "cfg.yaml").teacher, "cap");
  EXPECT_EQ(gpu::parse_train_config(head + "teacher: rollout\n", "cfg.yaml").teacher, "rollout");
  EXPECT_NE(parse_error(head + "teacher: oracle\n").find("cfg.yaml:3"), std::string::npos);
  EXPECT_NE(parse_error(head + "teacher_lookahead: 0\n").find("cfg.yaml:3"), std::string::npos);
  EXPECT_NE(parse_error(head + "teacher: rollout\ndagger_sample: true\n").find("cfg.yaml:4"),
            std::string::npos)
      << parse_error(head + "teacher: rollout\ndagger_sample: true\n");
  // Infinity as a cap; the defaults.
  const auto c = gpu::parse_train_config(head + "teacher_caps: [inf, 0.5]\n", "cfg.yaml");
  ASSERT_EQ(c.teacher_caps.size(), 2u);
  EXPECT_EQ(c.teacher_caps[0], 0.5);
  EXPECT_TRUE(std::isinf(c.teacher_caps[1]));
}

// Each key is bound to its member and documents the member's initial value as
// its default: a config that writes every key (and every key of its tables)
// at its documented default reads back as a default-built gpu::TrainConfig.
TEST(GpuTrainer, EachKeysDocumentedDefaultIsItsMembersValue) {
  const std::string text =
      "pacml_train: 1\nworld: gpu\n" + documented_defaults(gpu_train_settings(), "") + "train:\n" +
      documented_defaults(gpu_train_scenario_settings(), "  ") + "optimiser:\n" +
      documented_defaults(gpu_train_optimiser_settings(), "  ") + "network:\n" +
      documented_defaults(gpu_train_network_settings(), "  ");
  EXPECT_NE(text.find("  clusters: [ramp-a100-16x8]"), std::string::npos) << text;
  EXPECT_NE(text.find("  layers: [32, 16]"), std::string::npos) << text;
  gpu::TrainConfig d;
  d.source = "cfg.yaml";
  EXPECT_EQ(gpu::parse_train_config(text, "cfg.yaml").to_json(), d.to_json()) << text;
}

TEST(GpuTrainer, WorkloadIsOneOrAList) {
  const std::string head = "pacml_train: 1\nworld: gpu\n";
  EXPECT_EQ(gpu::parse_train_config(head, "d/cfg.yaml").workloads,
            std::vector<std::string>{"elasticflow-01-05"});
  // Files are relative to the config; every scenario runs with each.
  const auto c =
      gpu::parse_train_config(head + "workload: [elasticflow-01-05, w/zoo.yaml]\n", "d/cfg.yaml");
  EXPECT_EQ(c.workloads, (std::vector<std::string>{"elasticflow-01-05", "d/w/zoo.yaml"}));
  EXPECT_EQ(c.to_json()["workload"], nlohmann::json({"elasticflow-01-05", "d/w/zoo.yaml"}));
  EXPECT_EQ(
      gpu::parse_train_config(head + "workload: x.yaml\n", "d/cfg.yaml").to_json()["workload"],
      "d/x.yaml");
  EXPECT_NE(parse_error(head + "workload: []\n").find("cfg.yaml:3"), std::string::npos)
      << parse_error(head + "workload: []\n");
}

}  // namespace

// The shipped configs, read through their key tables (core/config/train_config_keys.h),
// still say what the shipped models were trained with: each setting the
// model's metadata records equals what parsing its config gives today.
void expect_config_matches_model(const nlohmann::json& parsed, const std::string& model,
                                 const std::vector<std::string>& resolved_elsewhere) {
  const std::string dir = std::string(PACML_SOURCE_DIR) + "/contrib/models/";
  const nlohmann::json trained =
      inference::read_weights_file(dir + model + ".pacw").metadata.at("training");
  int compared = 0;
  for (const auto& [key, value] : parsed.items()) {
    // source and name are labels (paper-zoo was trained as "default", then renamed).
    if (!trained.contains(key) || key == "source" || key == "name" ||
        std::count(resolved_elsewhere.begin(), resolved_elsewhere.end(), key))
      continue;
    EXPECT_EQ(trained[key], value) << model << ": " << key;
    ++compared;
  }
  EXPECT_GE(compared, 10) << model;
}

TEST(TrainConfigs, ShippedConfigsParseToWhatTheirModelsWereTrainedWith) {
  const std::string dir = std::string(PACML_SOURCE_DIR) + "/contrib/train/";
  // The experiment's own values (horizon, graphs, ...) are resolved when training starts.
  const std::vector<std::string> from_experiment = {"experiment", "graphs", "horizon",
                                                    "interarrival", "profile"};
  for (const std::string name :
       {"reference", "reference-A", "reference-B", "physical", "physical-D", "paper-zoo"})
    expect_config_matches_model(model::load_train_config(dir + name + ".yaml").to_json(), name,
                                from_experiment);
  expect_config_matches_model(gpu::load_train_config(dir + "gpu-default.yaml").to_json(), "default",
                              {"train", "validation", "workload"});
}

}  // namespace pacml
