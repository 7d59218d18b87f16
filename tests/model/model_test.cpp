// LibTorch tests (a separate binary so unit_tests never links LibTorch): the
// Eigen forward pass agrees with LibTorch to 1e-5 on real job graphs; the
// weights survive export/import; GAE; a short training run is deterministic
// for a fixed seed (and independent of the worker count).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/config/train_config_keys.h"
#include "core/inference/learned_policy.h"
#include "core/inference/network.h"
#include "core/placement/action_mask.h"
#include "core/policy/baselines.h"
#include "core/util/error.h"
#include "model/torch_network.h"
#include "model/trainer.h"
#include "sim/engine/environment.h"
#include "sim/experiment/experiment.h"
#include "tests/core/learning_test_util.h"
#include "tests/model/settings_test_util.h"

namespace pacml {
namespace {

struct Fixture {
  std::vector<JobGraphPtr> graphs = testing::real_graphs();
  JctEstimator est{RampTopology::parse("4x4x2"), Profile::reference()};
  features::Normalisers norm = features::compute_normalisers(graphs, est);
  nlohmann::json meta = inference::make_metadata(inference::Architecture(), norm, "reference",
                                                 {{"shape", "4x4x2"}, {"servers", 32}}, {}, "t");
};

// Steps over several graphs, β values and occupancies.
model::StepBatch make_steps(const Fixture& f, model::GraphSet& set, int n) {
  for (const auto& g : f.graphs)
    set.graphs.push_back(features::extract_job_features(*g, EdgeSizeRule::kReference));
  model::StepBatch b;
  Rng rng(5);
  for (int i = 0; i < n; ++i) {
    const int gi = i % static_cast<int>(f.graphs.size());
    ClusterState c(f.est.topology());
    for (int s = 0; s < c.num_servers(); ++s)
      if (rng.uniform() < 0.5) c.occupy(static_cast<JobId>(rng.below(4)), {s});
    const auto mask = action_mask(c, 16);
    const double beta = 0.1 + 0.9 * rng.uniform();
    features::ActionOutlook outlook;  // the masked actions as feasible, with some room
    for (int a = 0; a < 17; ++a) {
      outlook.feasible[a] = mask[a];
      outlook.room_after[a] = static_cast<float>(rng.uniform());
      outlook.free_after[a] = static_cast<float>(rng.uniform());
    }
    const auto in = features::graph_inputs(set.graphs[gi], *f.graphs[gi], f.norm,
                                           f.est.sequential_jct(*f.graphs[gi]), beta, 50,
                                           features::cluster_load(c), outlook);
    b.graph.push_back(gi);
    b.inputs.insert(b.inputs.end(), in.begin(), in.end());
    int a = 0;
    for (int k = 16; k >= 0; --k)
      if (mask[k]) a = k;
    b.actions.push_back(a);
  }
  return b;
}

TEST(TorchModel, EigenForwardMatchesLibTorchOnRealGraphs) {
  Fixture f;
  // The reference architecture (seed 1) and a wider one without the graph
  // LayerNorm (seed 2).
  for (std::uint64_t seed : {1u, 2u}) {
    inference::Architecture arch;
    if (seed == 2) {
      arch.graph_norm = false;
      arch.graph_out = 16;
      arch.head_hidden = 64;
      f.meta["architecture"] = arch.to_json();
    }
    model::TorchNetwork torch_net(arch, seed);
    const inference::WeightsFile w = torch_net.export_weights(f.meta);
    const inference::LearnedModel m(inference::parse_weights(inference::serialize_weights(w), "w"),
                                    "w");
    model::GraphSet set;
    const model::StepBatch b = make_steps(f, set, 60);
    std::vector<float> logits, values;
    torch_net.forward(set, b, logits, values);
    double max_diff = 0;
    for (size_t i = 0; i < b.size(); ++i) {
      const auto emb = m.network().embed(set.graphs[b.graph[i]]);
      float l[17], v;
      m.network().heads(emb.data(), &b.inputs[i * features::kGraphInputs], l, &v);
      for (int a = 0; a < 17; ++a) {
        max_diff = std::max(max_diff, std::abs(static_cast<double>(l[a]) - logits[i * 17 + a]) /
                                          std::max(1.0, std::abs(static_cast<double>(l[a]))));
      }
      max_diff = std::max(max_diff, std::abs(static_cast<double>(v) - values[i]));
    }
    EXPECT_LT(max_diff, 1e-5) << "seed " << seed;
    // Import back: identical tensors.
    model::TorchNetwork other(arch, seed + 100);
    other.import_weights(w, "w");
    const auto w2 = other.export_weights(f.meta);
    for (size_t i = 0; i < w.tensors.size(); ++i) EXPECT_EQ(w.tensors[i].data, w2.tensors[i].data);
  }
}

// make_steps with the network's old log-probs and values, zero advantages
// and returns: a batch ready for ppo_update.
model::StepBatch make_update_steps(const Fixture& f, const model::TorchNetwork& net,
                                   model::GraphSet& set, int n) {
  model::StepBatch b = make_steps(f, set, n);
  net.evaluate_actions(set, b, b.old_logp, b.old_values);
  b.advantages.assign(b.size(), 0.f);
  b.returns.assign(b.size(), 0.f);
  return b;
}

TEST(TorchModel, PpoUpdateAgreesAfterTrainingAndMovesTowardAdvantage) {
  Fixture f;
  model::TorchNetwork net(inference::Architecture(), 3);
  model::GraphSet set;
  model::StepBatch b = make_update_steps(f, net, set, 256);
  b.advantages.assign(b.size(), 1.f);  // every taken action was good
  for (size_t i = 0; i < b.size(); i += 2) b.advantages[i] = -1.f;
  b.returns.assign(b.size(), 0.5f);
  model::PpoParams p;
  p.epochs = 3;
  p.minibatch = 64;
  Rng rng(1);
  const auto st = net.ppo_update(set, b, p, rng);
  EXPECT_EQ(st.gradient_steps, 12);
  EXPECT_TRUE(std::isfinite(st.policy_loss) && std::isfinite(st.value_loss));
  // The trained weights still agree with Eigen.
  const auto w = net.export_weights(f.meta);
  const inference::LearnedModel m(w, "w");
  std::vector<float> logits, values;
  net.forward(set, b, logits, values);
  for (size_t i = 0; i < b.size(); i += 17) {
    const auto emb = m.network().embed(set.graphs[b.graph[i]]);
    float l[17], v;
    m.network().heads(emb.data(), &b.inputs[i * features::kGraphInputs], l, &v);
    for (int a = 0; a < 17; ++a)
      EXPECT_NEAR(l[a], logits[i * 17 + a], 1e-5 * std::max(1.f, std::abs(l[a])));
    EXPECT_NEAR(v, values[i], 1e-5);
  }
}

// kSearchValues: the logits regress the teacher's action values, so the
// arg-max follows the values' mean even where single estimates are noisy
// enough to rank the actions wrongly.
TEST(TorchModel, SearchValuesObjectiveLearnsTheBestActionThroughNoise) {
  Fixture f;
  model::TorchNetwork net(inference::Architecture(), 4);
  model::GraphSet set;
  model::StepBatch b = make_update_steps(f, net, set, 256);
  // gnmt (graph 4): declining is worth 2, the rest 0; the other graphs: an
  // action is worth a/4 (the largest feasible one is best). Noise ±1.5.
  auto mean_value = [&](size_t i, int a) {
    return b.graph[i] == 4 ? (a == 0 ? 2.f : 0.f) : a / 4.f;
  };
  auto best_of = [&](size_t i) {
    int best = 0;
    for (int a = 1; a < 17; ++a)
      if (b.inputs[i * features::kGraphInputs + features::kFeasibleOffset + a] > 0 &&
          mean_value(i, a) > mean_value(i, best))
        best = a;
    return best;
  };
  Rng noise(9);
  int noisy_labels = 0, choices = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    int label = 0;
    float top = -1e9f;
    for (int a = 0; a < 17; ++a) {
      const float v = mean_value(i, a) + static_cast<float>(3 * noise.uniform() - 1.5);
      b.action_values.push_back(v);
      if (b.inputs[i * features::kGraphInputs + features::kFeasibleOffset + a] > 0 && v > top)
        top = v, label = a;
    }
    noisy_labels += label != best_of(i);
  }
  model::PpoParams p;
  net.set_learning_rate(1e-2);
  p.epochs = 10;
  p.minibatch = 64;
  p.value_temperature = 0.5;
  Rng rng(2);
  net.ppo_update(set, b, p, rng, model::TorchNetwork::Objective::kSearchValues);
  std::vector<float> logits, values;
  net.forward(set, b, logits, values);
  int agree = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    int feasible = 0;
    for (int a = 0; a < 17; ++a)
      feasible += b.inputs[i * features::kGraphInputs + features::kFeasibleOffset + a] > 0;
    if (feasible < 2) continue;
    ++choices;
    const float* l = &logits[i * 17];
    const int arg = static_cast<int>(std::max_element(l, l + 17) - l);
    EXPECT_GT(b.inputs[i * features::kGraphInputs + features::kFeasibleOffset + arg], 0.f)
        << "a masked action has the largest logit";
    agree += arg == best_of(i);
  }
  ASSERT_GT(choices, 100);
  EXPECT_GT(noisy_labels, choices / 10) << "the noise should mislead single estimates";
  EXPECT_GE(agree, choices * 95 / 100) << agree << " of " << choices;
  // Without the values the objective refuses to run.
  b.action_values.clear();
  EXPECT_THROW(net.ppo_update(set, b, p, rng, model::TorchNetwork::Objective::kSearchValues),
               std::invalid_argument);
}

TEST(Trainer, Gae) {
  std::vector<float> adv, ret;
  model::compute_gae({1, 1, -1}, {0.5f, 0.25f, 0.f}, 0.9, 0.8, adv, ret);
  const double d2 = -1 - 0.0, d1 = 1 + 0.9 * 0 - 0.25, d0 = 1 + 0.9 * 0.25 - 0.5;
  EXPECT_NEAR(adv[2], d2, 1e-6);
  EXPECT_NEAR(adv[1], d1 + 0.72 * d2, 1e-6);
  EXPECT_NEAR(adv[0], d0 + 0.72 * (d1 + 0.72 * d2), 1e-6);
  EXPECT_NEAR(ret[0], adv[0] + 0.5, 1e-6);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

model::TrainConfig tiny_config() {
  // The built-in default experiment (zoo graphs, physical profile), short episodes.
  const std::string yaml = R"(pacml_train: 1
name: tiny
experiment: default
horizon: 120
betas: [A, D]
seed: 7
max_updates: 3
episodes_per_update: 2
ppo: {minibatch: 32, epochs: 2}
eval: {every: 2, seeds: [5], baselines: [para_max]}
checkpoint_every: 2
)";
  return model::parse_train_config(yaml, "tiny.yaml");
}

// Each key is bound to its member and documents the member's initial value as
// its default: a config that writes every key (and every key of its tables)
// at its documented default reads back as a default-built TrainConfig; with
// a warm start, its keys and its search's read back as theirs.
TEST(Trainer, EachKeysDocumentedDefaultIsItsMembersValue) {
  const std::string text = "pacml_train: 1\n" + documented_defaults(train_settings(), "") +
                           "ppo:\n" + documented_defaults(train_ppo_settings(), "  ") +
                           "network:\n" + documented_defaults(train_network_settings(), "  ") +
                           "eval:\n" + documented_defaults(train_eval_settings(), "  ");
  EXPECT_NE(text.find("betas: [A, B, C, D]"), std::string::npos) << text;
  model::TrainConfig d;
  d.source = "cfg.yaml";
  EXPECT_EQ(model::parse_train_config(text, "cfg.yaml").to_json(), d.to_json()) << text;
  const model::TrainConfig w = model::parse_train_config(
      "pacml_train: 1\nwarm_start:\n  teacher: para_max\n  updates: 3\n" +
          documented_defaults(train_warm_start_settings(), "  ") + "  search:\n" +
          documented_defaults(train_search_settings(), "    "),
      "cfg.yaml");
  const TrainSearch search;
  EXPECT_EQ(w.search.lookahead, search.lookahead);
  EXPECT_EQ(w.search.samples, search.samples);
  EXPECT_EQ(w.search.margin, search.margin);
  EXPECT_EQ(w.imitate_values, d.imitate_values);
  EXPECT_EQ(w.ppo.imitation_smoothing, d.ppo.imitation_smoothing);
  EXPECT_EQ(w.ppo.value_temperature, d.ppo.value_temperature);
}

TEST(Trainer, ShortRunIsDeterministicForAFixedSeed) {
  const model::TrainConfig c = tiny_config();
  std::vector<std::string> weights, curves;
  for (int workers : {1, 2, 2}) {
    model::TrainOptions o;
    o.out_dir = ::testing::TempDir() + "/pacml-train-" + std::to_string(weights.size());
    o.workers = workers;
    o.progress = 0;
    o.verbose = false;
    o.pin_threads = weights.size() == 2;  // pinned threads (hwloc) change nothing
    const auto s = model::train(c, o);
    EXPECT_EQ(s.updates, 3);
    EXPECT_GT(s.env_steps, 0);
    const inference::WeightsFile w = inference::read_weights_file(s.final_weights);
    std::string tensors;
    for (const auto& t : w.tensors)
      tensors.append(reinterpret_cast<const char*>(t.data.data()), t.data.size() * 4);
    weights.push_back(tensors);
    // The curve without the wall-clock column.
    std::stringstream in(slurp(o.out_dir + "/curve.csv"));
    std::string line, kept;
    while (std::getline(in, line)) {
      const size_t a = line.find(',', line.find(',') + 1), b = line.find(',', a + 1);
      kept += line.substr(0, a) + line.substr(b) + "\n";
    }
    curves.push_back(kept);
    EXPECT_TRUE(inference::LearnedModel::load(s.final_weights) != nullptr);
  }
  EXPECT_EQ(weights[0], weights[1]);
  EXPECT_EQ(weights[1], weights[2]);
  EXPECT_EQ(curves[0], curves[1]);
  EXPECT_EQ(curves[1], curves[2]);
}

TEST(Trainer, ResumeContinuesFromTheCheckpoint) {
  model::TrainConfig c = tiny_config();
  model::TrainOptions o;
  o.out_dir = ::testing::TempDir() + "/pacml-train-resume";
  o.progress = 0;
  o.verbose = false;
  o.max_updates = 2;
  EXPECT_EQ(model::train(c, o).updates, 2);
  o.resume = true;
  o.max_updates = 3;
  const auto s = model::train(c, o);
  EXPECT_EQ(s.updates, 3);
  std::stringstream in(slurp(o.out_dir + "/curve.csv"));
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 4);  // header + updates 1..3
}

// Warm start: after imitating fixed:2 the greedy student takes fixed:2's
// decision (2 where feasible, else decline) on nearly every arrival.
TEST(Trainer, WarmStartImitatesTheTeacher) {
  model::TrainConfig c = tiny_config();
  c.teacher = "fixed:2";
  c.teacher_updates = 6;
  c.max_updates = 6;
  c.ppo.lr = 1e-2;
  c.ppo.epochs = 8;
  c.ppo.imitation_smoothing = 0;
  c.dagger_from = 3;  // the last three updates follow the student (DAgger)
  c.eval_every = 0;
  model::TrainOptions o;
  o.out_dir = ::testing::TempDir() + "/pacml-train-warm";
  o.progress = 0;
  o.verbose = false;
  const auto s = model::train(c, o);
  auto model = inference::LearnedModel::load(s.final_weights);
  inference::LearnedPolicy student(model, "student");
  auto teacher = make_baseline_policy("fixed:2");
  const sim::ExperimentSpec spec = sim::paper_zoo_experiment();
  sim::Experiment ex(spec);
  sim::EnvironmentConfig cfg;
  cfg.estimator = ex.estimator();
  cfg.workload = ex.workload(3);  // β D: 2 is often feasible
  cfg.horizon = 120;
  sim::Environment env(cfg);
  int agree = 0, total = 0;
  for (const sim::Observation* obs = &env.reset(11); !obs->done; obs = &env.observe()) {
    DecisionContext ctx{*obs->job->graph, obs->job->beta, *obs->cluster,   obs->mask,
                        env.estimator(),  env.cache(),    env.policy_rng()};
    const auto feasible = features::feasible_actions(ctx.job, ctx.beta, ctx.cluster, ctx.mask,
                                                     ctx.estimator, ctx.cache);
    int want = teacher->choose(ctx);
    if (!feasible[want]) want = 0;
    const int got = student.choose(ctx);
    agree += got == want;
    ++total;
    env.step(got);
  }
  ASSERT_GT(total, 20);
  EXPECT_GE(agree, total * 9 / 10) << agree << " of " << total;
}

TEST(Trainer, ConfigErrorsNameTheLine) {
  try {
    model::parse_train_config("pacml_train: 1\nppo: {lr: 0.1, clipp: 3}\n", "c.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("c.yaml:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("clipp"), std::string::npos) << e.what();
  }
  EXPECT_THROW(model::parse_train_config("name: x\n", "c.yaml"), InputError);
  try {
    model::parse_train_config("pacml_train: 1\nwarm_start: {teacher: fixed:99, updates: 3}\n",
                              "c.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("c.yaml:2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(
      model::parse_train_config("pacml_train: 1\nwarm_start: {teacher: fixed:4}\n", "c.yaml"),
      InputError);
  try {  // the values objective needs a search to estimate them
    model::parse_train_config(
        "pacml_train: 1\nwarm_start:\n  teacher: fixed:4\n  updates: 2\n  objective: values\n",
        "c.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("c.yaml:5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("search"), std::string::npos) << e.what();
  }
  EXPECT_THROW(
      model::parse_train_config(
          "pacml_train: 1\nwarm_start: {teacher: fixed:4, updates: 2, objective: q}\n", "c.yaml"),
      InputError);
  const auto ok = model::parse_train_config(
      "pacml_train: 1\nwarm_start: {teacher: fixed:4, updates: 2, objective: values, "
      "temperature: 0.5, search: {lookahead: 5}}\n",
      "c.yaml");
  EXPECT_TRUE(ok.imitate_values);
  EXPECT_DOUBLE_EQ(ok.ppo.value_temperature, 0.5);
}

}  // namespace
}  // namespace pacml
