// The learned GPU policy's inputs and its Eigen policy (core/gpu/features.h,
// core/gpu/learned_policy.h): what a decision offers, that the
// inputs tell jobs apart, that weights load, decide and are refused when
// they are not a GPU model, and that a replay with one is deterministic.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include <Eigen/Dense>

#include "core/gpu/features.h"
#include "core/gpu/learned_policy.h"
#include "core/gpu/placement.h"
#include "core/parallel/duration_model.h"
#include "core/util/error.h"
#include "sim/gpu/fitted_workload.h"
#include "sim/gpu/replay.h"
#include "tests/core/learning_test_util.h"

namespace pacml {
namespace {

using inference::WeightsFile;

std::shared_ptr<const PhysicalEstimator> estimator(int servers) {
  std::istringstream in("pacml_cluster: 1\nnetwork: fabric\nservers: " + std::to_string(servers) +
                        "\ngpus_per_server: 8\nintra_server_bandwidth: 300e9\n"
                        "server_bandwidth: 25e9\n");
  return std::make_shared<const PhysicalEstimator>(load_cluster_spec(in, "test"),
                                                   PhysicalConstants::calibrated());
}

ParallelJobPtr zoo_job(const std::string& model, int batch) {
  ZooOptions options;
  options.batch = batch;
  return ParallelJob::from_zoo(model, options);
}

// A decision for `job` at time 0 on an empty cluster of `durations`.
gpu::DecisionInput empty_cluster_input(DurationModel& durations, const ParallelJobPtr& job,
                                       long iterations, double deadline) {
  gpu::DecisionInput in;
  in.deadline = deadline;
  in.cluster_gpus = in.free_gpus = durations.cluster().num_gpus();
  in.gpus_per_server = durations.cluster().gpus_per_server;
  in.free_servers = durations.cluster().num_servers();
  in.job = job.get();
  in.startable = [](int) { return true; };
  in.seconds = [&durations, job, iterations](int k) {
    return durations.seconds(*job, iterations, k);
  };
  in.traits = [&durations, job](int k) { return durations.traits(*job, k); };
  return in;
}

// Weights whose every action logit is the action's "start" scalar: every GPU
// count ties above "do not start", and ties go to the lowest index, the fewest
// GPUs that meet the deadline: min_feasible, written as a network.
WeightsFile start_fewest_weights(const gpu::Architecture& arch = {}) {
  WeightsFile w;
  w.metadata = gpu::make_metadata(arch, {{"test", "start the fewest"}}, "test");
  for (const auto& [name, shape] : arch.tensor_shapes()) {
    inference::NamedTensor t{name, shape, {}};
    t.data.assign(static_cast<size_t>(t.numel()), 0.f);
    if (name.find("_ln.weight") != std::string::npos) std::fill(t.data.begin(), t.data.end(), 1.f);
    w.tensors.push_back(std::move(t));
  }
  auto set = [&](const std::string& name, long index, float v) {
    for (auto& t : w.tensors)
      if (t.name == name) t.data[static_cast<size_t>(index)] = v;
  };
  set("act1.weight", arch.state_in(), 1.f);  // row 0, the action's first scalar (start)
  set("act2.weight", 0, 1.f);
  set("act3.weight", 0, 1.f);
  return w;
}

WeightsFile random_gpu_weights(std::uint64_t seed, const gpu::Architecture& arch = {}) {
  Rng rng(seed);
  WeightsFile w;
  w.metadata = gpu::make_metadata(arch, {{"test", "random"}}, "test");
  for (const auto& [name, shape] : arch.tensor_shapes()) {
    inference::NamedTensor t{name, shape, {}};
    t.data.resize(static_cast<size_t>(t.numel()));
    const bool gain = name.find("_ln.weight") != std::string::npos;
    for (float& v : t.data)
      v = static_cast<float>((gain ? 1.0 : 0.0) + 0.5 * (2 * rng.uniform() - 1));
    w.tensors.push_back(std::move(t));
  }
  return w;
}

std::string write_temp(const WeightsFile& w, const std::string& tag) {
  const std::string path = ::testing::TempDir() + "/gpu_policy_" + tag + ".pacw";
  inference::write_weights_file(path, w);
  return path;
}

TEST(GpuFeatures, OffersNotStartingThenTheFewestGpusThatMeetTheDeadline) {
  DurationModel durations(estimator(4));
  const ParallelJobPtr job = zoo_job("resnet50", 256);
  const double one = durations.seconds(*job, 2000, 1);
  // A deadline the job meets on 3 GPUs or more, not on 2.
  const double deadline =
      0.5 * (durations.seconds(*job, 2000, 2) + durations.seconds(*job, 2000, 3));
  gpu::DecisionInput in = empty_cluster_input(durations, job, 2000, deadline);
  const gpu::DecisionFeatures f = gpu::decision_features(in);
  ASSERT_GT(one, deadline);
  EXPECT_EQ(f.fewest, 3);
  ASSERT_GE(f.gpus.size(), 3u);
  EXPECT_EQ(f.gpus[0], 0);
  EXPECT_EQ(f.gpus[1], 3);
  EXPECT_EQ(f.gpus[2], 4);  // the next power of two
  for (size_t a = 1; a < f.gpus.size(); ++a)
    EXPECT_LE(in.seconds(f.gpus[a]), deadline) << f.gpus[a] << " GPUs";
  EXPECT_EQ(f.actions.size(), f.gpus.size() * gpu::kActionScalars);
  for (float x : f.job) EXPECT_TRUE(x >= 0 && x <= 1);
  for (float x : f.context) EXPECT_TRUE(x >= 0 && x <= 1);
  for (float x : f.actions) EXPECT_TRUE(x >= 0 && x <= 1);
  // No count meets an impossible deadline: only "do not start".
  in.deadline = 1e-3;
  EXPECT_EQ(gpu::decision_features(in).gpus, std::vector<int>{0});
}

// Each candidate carries what the physical model planned for it: the memory
// of its fullest GPU and its strategy, one of five flags. gpt2 at batch 256
// pipelines on 4 and 8 GPUs and runs data-parallel on more, so its
// candidates differ in both.
TEST(GpuFeatures, CandidatesCarryTheirPlansMemoryAndStrategy) {
  DurationModel durations(estimator(4));
  const ParallelJobPtr job = zoo_job("gpt2", 256);
  const gpu::DecisionFeatures f =
      gpu::decision_features(empty_cluster_input(durations, job, 1000, INFINITY));
  const auto& names = gpu::action_scalar_names();
  ASSERT_EQ(names[8], "memory_share");
  ASSERT_EQ(names[9], "strategy_data");
  ASSERT_EQ(names[12], "strategy_pipeline");
  std::set<Strategy> seen;
  std::set<float> memories;
  for (size_t a = 0; a < f.gpus.size(); ++a) {
    const float* x = f.actions.data() + a * gpu::kActionScalars;
    const PlanTraits plan = durations.traits(*job, f.gpus[a]);
    if (a == 0) {
      for (int i = 8; i < gpu::kActionScalars; ++i) EXPECT_EQ(x[i], 0.f);
      continue;
    }
    EXPECT_EQ(x[8], std::min(plan.memory_share, 1.f)) << f.gpus[a] << " GPUs";
    for (int s = 0; s < 5; ++s)
      EXPECT_EQ(x[9 + s], plan.strategy == kConcreteStrategies[s] ? 1.f : 0.f)
          << f.gpus[a] << " GPUs, flag " << names[9 + s];
    seen.insert(plan.strategy), memories.insert(x[8]);
  }
  EXPECT_TRUE(seen.count(Strategy::kPipeline) && seen.count(Strategy::kData))
      << "the candidates should pipeline on few GPUs and not on many";
  EXPECT_GT(memories.size(), 1u);
}

TEST(GpuFeatures, TellModelsWithDifferentScalingApart) {
  DurationModel durations(estimator(4));
  const ParallelJobPtr bert = zoo_job("bert-base", 32), vgg = zoo_job("vgg16", 256);
  auto inputs = [&](const ParallelJobPtr& job) {
    const double deadline = 0.6 * durations.seconds(*job, 1000, 1);
    return empty_cluster_input(durations, job, 1000, deadline);
  };
  const gpu::DecisionInput bert_in = inputs(bert), vgg_in = inputs(vgg);
  const gpu::DecisionFeatures fb = gpu::decision_features(bert_in);
  const gpu::DecisionFeatures fv = gpu::decision_features(vgg_in);
  const int doubling = 2;  // gpu::job_scalar_names()[2]
  ASSERT_EQ(gpu::job_scalar_names()[doubling], "doubling_efficiency");
  EXPECT_GT(std::abs(fb.job[doubling] - fv.job[doubling]), 0.05)
      << "bert " << fb.job[doubling] << " vgg " << fv.job[doubling];
  EXPECT_NE(fb.job[7], fv.job[7]);  // transformer or not
  // And the graphs embed differently.
  const auto model = std::make_shared<const gpu::LearnedModel>(random_gpu_weights(3), "t");
  gpu::LearnedPolicy policy(model);
  const std::vector<float> eb = policy.embedding(bert.get());
  const std::vector<float> ev = policy.embedding(vgg.get());
  double distance = 0;
  for (size_t i = 0; i < eb.size(); ++i) distance += std::abs(eb[i] - ev[i]);
  EXPECT_GT(distance, 1e-3);
}

TEST(GpuLearnedPolicy, ANetworkThatStartsTheFewestIsMinFeasible) {
  const std::string path = write_temp(start_fewest_weights(), "fewest");
  DurationModel durations(estimator(2));
  const auto workload = gpu::load_workload_named("elasticflow-01-05");
  const auto jobs = gpu::generate_jobs(workload, 1.0, 300, 7, durations);
  for (gpu::Admission admission : {gpu::Admission::kImmediate, gpu::Admission::kQueue}) {
    gpu::ReplayConfig config;
    config.admission = admission;
    config.policy = gpu::Policy::parse("min_feasible", "test");
    const gpu::ReplayResult rule = gpu::replay_on_gpus(jobs, durations, config);
    config.policy = gpu::Policy::parse("pacml:" + path, "test");
    const gpu::ReplayResult learned = gpu::replay_on_gpus(jobs, durations, config);
    ASSERT_EQ(rule.jobs.size(), learned.jobs.size());
    for (size_t j = 0; j < rule.jobs.size(); ++j)
      ASSERT_EQ(rule.jobs[j].gpus, learned.jobs[j].gpus) << "job " << j;
    EXPECT_EQ(rule.stats.met, learned.stats.met);
    EXPECT_GT(rule.stats.met, 0);
  }
}

TEST(GpuLearnedPolicy, ReplaysAreDeterministicAndEveryStartMeetsTheDeadlineItWasGiven) {
  const std::string path = write_temp(random_gpu_weights(11), "random");
  DurationModel durations(estimator(2));
  const auto workload = gpu::load_workload_named("elasticflow-01-05");
  const auto jobs = gpu::generate_jobs(workload, 1.5, 300, 3, durations);
  gpu::ReplayConfig config;
  config.admission = gpu::Admission::kQueue;
  config.policy = gpu::Policy::parse("pacml:" + path, "test");
  const gpu::ReplayResult a = gpu::replay_on_gpus(jobs, durations, config);
  config.policy = gpu::Policy::parse("pacml:" + path, "test");
  const gpu::ReplayResult b = gpu::replay_on_gpus(jobs, durations, config);
  for (size_t j = 0; j < a.jobs.size(); ++j) {
    ASSERT_EQ(a.jobs[j].gpus, b.jobs[j].gpus) << "job " << j;
    if (a.jobs[j].gpus > 0) {
      EXPECT_TRUE(a.jobs[j].met) << "job " << j;
    }
  }
}

// The heads with Eigen's products (their values), and with every output
// summed one input after the other, then its bias (their bits: the order
// core/gpu/network.cpp defines, the same on every CPU).
class ReferenceHeads {
 public:
  using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  ReferenceHeads(const gpu::Architecture& arch, const WeightsFile& w) : arch_(arch) {
    for (const char* name : {"act1", "act2", "act3", "val1", "val2"}) {
      Layer& l = layers_[name];
      for (const inference::NamedTensor& t : w.tensors) {
        if (t.name == std::string(name) + ".weight")
          l.w = Eigen::Map<const Mat>(t.data.data(), t.shape[0], t.shape[1]);
        if (t.name == std::string(name) + ".bias")
          l.b = Eigen::Map<const Eigen::RowVectorXf>(t.data.data(), t.shape[0]);
      }
    }
  }
  void score(const std::vector<float>& embedding, const gpu::DecisionFeatures& d,
             std::vector<float>& logits, float* value, bool sequential) const {
    const int e = arch_.graph.embedding(), state = arch_.state_in();
    const int actions = static_cast<int>(d.gpus.size());
    Mat x(actions, arch_.action_in()), s(1, state);
    s.leftCols(e) = Eigen::Map<const Mat>(embedding.data(), 1, e);
    s.middleCols(e, gpu::kJobScalars) = Eigen::Map<const Mat>(d.job.data(), 1, gpu::kJobScalars);
    s.rightCols(gpu::kContextScalars) =
        Eigen::Map<const Mat>(d.context.data(), 1, gpu::kContextScalars);
    x.leftCols(state) = s.replicate(actions, 1);
    x.rightCols(gpu::kActionScalars) =
        Eigen::Map<const Mat>(d.actions.data(), actions, gpu::kActionScalars);
    auto layer = [&](const Mat& in, const char* name, bool rectify) {
      Mat y = sequential ? sequential_linear(in, name) : eigen_linear(in, name);
      return rectify ? Mat(y.cwiseMax(0.f)) : y;
    };
    const Mat out = layer(layer(layer(x, "act1", true), "act2", true), "act3", false);
    logits.assign(out.data(), out.data() + actions);
    *value = layer(layer(s, "val1", true), "val2", false)(0, 0);
  }

 private:
  struct Layer {
    Mat w;
    Eigen::RowVectorXf b;
  };
  Mat eigen_linear(const Mat& x, const std::string& name) const {
    const Layer& l = layers_.at(name);
    Mat y = x * l.w.transpose();
    y.rowwise() += l.b;
    return y;
  }
  Mat sequential_linear(const Mat& x, const std::string& name) const {
    const Layer& l = layers_.at(name);
    Mat y(x.rows(), l.w.rows());
    for (Eigen::Index r = 0; r < x.rows(); ++r)
      for (Eigen::Index j = 0; j < l.w.rows(); ++j) {
        float sum = x(r, 0) * l.w(j, 0);
        for (Eigen::Index k = 1; k < x.cols(); ++k) {
          const float product = x(r, k) * l.w(j, k);
          sum = sum + product;
        }
        y(r, j) = sum + l.b(j);
      }
    return y;
  }
  gpu::Architecture arch_;
  std::map<std::string, Layer> layers_;
};

TEST(GpuNetwork, SumsEachOutputInputByInput) {
  // Bit for bit where the compiler rounds every product (x86-64 without
  // FMA, pacml's build); a compiler allowed to fuse multiply-adds elsewhere
  // may round differently, and there only the values are compared.
#if defined(__x86_64__) && !defined(__FMA__)
  const bool exact = true;
#else
  const bool exact = false;
#endif
  gpu::Architecture odd;  // a state of 29, 7 hidden units
  odd.graph.layers = {8, 13};
  odd.hidden = 7;
  gpu::Architecture wide;  // a state of 40, 20 hidden units
  wide.graph.layers = {16, 24};
  wide.hidden = 20;
  gpu::Architecture shipped;  // pacml:default's shape: 16 hidden units
  shipped.graph.layers = {32, 16};
  shipped.hidden = 16;
  gpu::Architecture narrow = shipped;  // 12 hidden units
  narrow.hidden = 12;
  gpu::Architecture eight = shipped;  // 8 hidden units
  eight.hidden = 8;
  for (const gpu::Architecture& arch : {gpu::Architecture{}, odd, wide, shipped, narrow, eight}) {
    const WeightsFile w = random_gpu_weights(17, arch);
    const gpu::Network network(arch, w, "test");
    const ReferenceHeads reference(arch, w);
    Rng rng(5);
    auto draw = [&](size_t n, bool zeros) {
      std::vector<float> v(n);
      for (float& x : v) x = zeros && rng.uniform() < 0.3 ? 0.f : static_cast<float>(rng.uniform());
      return v;
    };
    for (int trial = 0; trial < 300; ++trial) {
      gpu::DecisionFeatures d;
      d.gpus.assign(1 + rng.below(gpu::kMaxStartActions + 1), 1);
      d.job = draw(gpu::kJobScalars, true);
      d.context = draw(gpu::kContextScalars, true);
      d.actions = draw(d.gpus.size() * gpu::kActionScalars, true);
      std::vector<float> embedding = draw(static_cast<size_t>(arch.graph.embedding()), false);
      for (float& x : embedding) x = 4 * x - 2;
      std::vector<float> logits, sequential, eigen;
      float value = 0, sequential_value = 0, eigen_value = 0;
      network.score(embedding, d, logits, &value);
      reference.score(embedding, d, sequential, &sequential_value, true);
      reference.score(embedding, d, eigen, &eigen_value, false);
      ASSERT_EQ(logits.size(), sequential.size());
      const std::string where =
          "hidden " + std::to_string(arch.hidden) + " trial " + std::to_string(trial);
      for (size_t a = 0; a < logits.size(); ++a) {
        ASSERT_NEAR(logits[a], eigen[a], 1e-5) << where << " action " << a;
        if (exact) {
          ASSERT_EQ(0, std::memcmp(&logits[a], &sequential[a], sizeof(float)))
              << where << " action " << a << ": " << logits[a] << " vs " << sequential[a];
        }
      }
      ASSERT_NEAR(value, eigen_value, 1e-5) << where;
      if (exact) {
        ASSERT_EQ(0, std::memcmp(&value, &sequential_value, sizeof(float))) << where;
      }
    }
  }
}

TEST(GpuLearnedPolicy, ChoosesWhatDecideDoesAndDrawsTheSameNumbers) {
  const auto model = std::make_shared<const gpu::LearnedModel>(random_gpu_weights(7), "random");
  DurationModel durations(estimator(4));
  for (bool sample : {false, true}) {
    gpu::LearnedPolicy chooser(model, sample), decider(model, sample);
    Rng a(3), b(3);
    int started = 0, declined = 0;
    for (const auto& [name, batch] :
         {std::pair<const char*, int>{"resnet50", 256}, {"bert-base", 32}, {"vgg16", 256}}) {
      const ParallelJobPtr job = zoo_job(name, batch);
      const double one = durations.seconds(*job, 2000, 1);
      for (double share : {1e-4, 0.05, 0.3, 0.6, 2.0})
        for (int free : {32, 12, 3}) {
          gpu::DecisionInput in = empty_cluster_input(durations, job, 2000, share * one);
          in.free_gpus = free;
          in.startable = [free](int k) { return k >= 1 && k <= free; };
          const int k = chooser.choose(in, a);
          ASSERT_EQ(k, decider.decide(in, b).gpus()) << name << " " << share << " " << free;
          (k > 0 ? started : declined) += 1;
        }
    }
    EXPECT_EQ(a.next(), b.next()) << "the same draws";
    EXPECT_GT(started, 0);
    EXPECT_GT(declined, 0);
  }
}

TEST(GpuLearnedPolicy, RefusesWeightsThatAreNotAGpuModel) {
  const std::string paper =
      write_temp(testing::random_weights(1, "physical", features::Normalisers{}), "paper");
  try {
    gpu::Policy::parse("pacml:" + paper, "pacml.conf:3");
    FAIL() << "a paper-world model was accepted as a GPU policy";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("pacml-gpu"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("pacml.conf:3"), std::string::npos) << e.what();
  }
  WeightsFile old_schema = start_fewest_weights();
  old_schema.metadata["feature_schema"]["version"] = 0;
  EXPECT_THROW(gpu::Policy::parse("pacml:" + write_temp(old_schema, "schema"), "t"), InputError);
  WeightsFile missing = start_fewest_weights();
  missing.tensors.pop_back();
  EXPECT_THROW(gpu::Policy::parse("pacml:" + write_temp(missing, "missing"), "t"), InputError);
  EXPECT_THROW(gpu::Policy::parse("pacml:/nonexistent/model.pacw", "t"), InputError);
}

}  // namespace
}  // namespace pacml
