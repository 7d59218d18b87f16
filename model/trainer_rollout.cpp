#include "model/trainer_rollout.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include "core/inference/learned_policy.h"
#include "core/policy/baselines.h"
#include "sim/engine/episode.h"
#include "sim/engine/rollout_search.h"

namespace pacml::model::ppo {

StepBatch concatenate(const std::vector<EpisodeSteps>& episodes) {
  StepBatch batch;
  for (const auto& ep : episodes) {
    batch.graph.insert(batch.graph.end(), ep.graph.begin(), ep.graph.end());
    batch.inputs.insert(batch.inputs.end(), ep.inputs.begin(), ep.inputs.end());
    batch.actions.insert(batch.actions.end(), ep.actions.begin(), ep.actions.end());
    batch.action_values.insert(batch.action_values.end(), ep.action_values.begin(),
                               ep.action_values.end());
  }
  return batch;
}

Setup make_setup(const TrainConfig& c) {
  sim::ExperimentSpec spec =
      // "default": the built-in zoo experiment the shipped model learned on
      // (pacml's default experiment before the GPU-cluster one).
      c.experiment == "default" || c.experiment == "paper-zoo"
          ? sim::paper_zoo_experiment()
          : sim::load_experiment_file(c.experiment, /*check_policies=*/false);
  if (!c.profile.empty()) spec.profile = c.profile;
  if (c.horizon > 0) spec.horizon = c.horizon;
  if (c.interarrival > 0) spec.interarrival = c.interarrival;
  if (!c.graphs.empty()) spec.graphs = c.graphs;
  spec.betas.clear();
  for (const auto& b : c.betas) spec.betas.push_back(sim::BetaSpec::parse(b, c.source + ": betas"));
  spec.policies = {"para_max"};
  Setup s;
  s.experiment = std::make_unique<sim::Experiment>(spec);
  const auto& est = *s.experiment->estimator();
  for (size_t b = 0; b < spec.betas.size(); ++b)
    for (const JobGraphPtr& g : s.experiment->workload(b)->graphs())
      if (!s.graph_index.count(g->fingerprint())) {
        s.graph_index[g->fingerprint()] = static_cast<int>(s.population.size());
        s.population.push_back(g);
        s.graph_set.graphs.push_back(features::extract_job_features(*g, est.profile().edge_sizes));
      }
  s.normalisers = features::compute_normalisers(s.population, est);
  s.topology = {{"shape", est.topology().shape()}, {"servers", est.topology().num_servers()}};
  return s;
}

sim::EnvironmentConfig env_config(const Setup& s, size_t beta) {
  sim::EnvironmentConfig cfg;
  cfg.estimator = s.experiment->estimator();
  cfg.workload = s.experiment->workload(beta);
  cfg.horizon = s.experiment->spec().horizon;
  cfg.record_jobs = false;
  cfg.record_timeline = false;
  return cfg;
}

namespace {

// The teacher's action for the current decision: the baseline's choice (0
// where it is not feasible), or with a search the best feasible action by
// rollout search over the baseline. With a search, `values` (kNumActions
// entries) receives each feasible action's estimated return, less the
// search's margin for every action but the baseline's (0 elsewhere, and
// everywhere when only one action is feasible). The margin stands for what
// the truncated lookahead cannot see (fragmentation that costs after it
// ends), so a network regressing these values departs from the baseline
// only where a departure pays by more than the margin on average.
int teacher_action(sim::Environment& env, const DecisionContext& ctx, const float* feasible,
                   Policy& teacher, const sim::RolloutSearchConfig& search,
                   std::uint64_t search_seed, float* values) {
  int base = teacher.choose(ctx);
  if (base < 0 || base >= features::kNumActions || feasible[base] == 0.f) base = 0;
  std::fill(values, values + features::kNumActions, 0.f);
  if (search.lookahead <= 0) return base;
  std::vector<int> candidates = {base};
  for (int a = 0; a < features::kNumActions; ++a)
    if (feasible[a] != 0.f && a != base) candidates.push_back(a);
  if (candidates.size() == 1) return base;
  const sim::RolloutSearchResult r =
      sim::rollout_search(env, candidates, teacher, search, search_seed);
  for (size_t i = 0; i < candidates.size(); ++i)
    values[candidates[i]] = static_cast<float>(r.value[i] - (i > 0 ? search.margin : 0.0));
  return r.action;
}

// `teacher` (may be null) labels every decision; the episode follows the
// teacher, or with `follow_student` the sampled policy (DAgger).
EpisodeSteps run_rollout(const Setup& s,
                         const std::shared_ptr<const inference::LearnedModel>& model, size_t beta,
                         std::uint64_t seed, double reward_scale, Policy* teacher,
                         const sim::RolloutSearchConfig& search, bool follow_student) {
  sim::Environment env(env_config(s, beta));
  inference::LearnedPolicy policy(model, "pacml:train", /*sample=*/true);
  EpisodeSteps ep;
  ep.beta = beta;
  const sim::Observation* obs = &env.reset(seed);
  while (!obs->done) {
    const JobGraph& job = *obs->job->graph;
    DecisionContext ctx{job,         obs->job->beta,  *obs->cluster, obs->mask, env.estimator(),
                        env.cache(), env.policy_rng()};
    const inference::Decision d = policy.decide(ctx);
    float values[features::kNumActions] = {};
    const int label =
        teacher
            ? teacher_action(env, ctx, d.inputs.data() + features::kFeasibleOffset, *teacher,
                             search, sim::derive_seed(seed, 5000000 + ep.actions.size()), values)
            : d.action;
    ep.action_values.insert(ep.action_values.end(), values, values + features::kNumActions);
    ep.graph.push_back(s.graph_index.at(job.fingerprint()));
    ep.inputs.insert(ep.inputs.end(), d.inputs.begin(), d.inputs.end());
    ep.actions.push_back(label);
    const int action = teacher && !follow_student ? label : d.action;
    const sim::StepResult r = env.step(action);
    ep.rewards.push_back(static_cast<float>(r.reward * reward_scale));
    obs = &env.observe();
  }
  ep.blocking = env.result().stats.blocking_rate;
  return ep;
}

// Runs fn(i) for i in [0, n) on `threads` threads; rethrows the first error.
// With a pinner, pool thread k runs on core k (the calling thread, worker 0,
// was pinned by the training loop, model/trainer.cpp).
template <typename Fn>
void parallel_for(size_t n, int threads, Fn fn, const hw::ThreadPinner* pinner = nullptr) {
  std::vector<std::exception_ptr> errors(n);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < n;) {
      try {
        fn(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const int t = std::max(1, std::min<int>(threads, static_cast<int>(n)));
  std::vector<std::thread> pool;
  for (int k = 1; k < t; ++k)
    pool.emplace_back([&work, pinner, k] {
      if (pinner) pinner->pin_current_thread(k);
      work();
    });
  work();
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace

std::vector<EpisodeSteps> run_rollouts(const Setup& s, const TrainConfig& c,
                                       const std::shared_ptr<const inference::LearnedModel>& model,
                                       long update, bool imitating, int threads,
                                       const hw::ThreadPinner* pinner) {
  const int ne = c.episodes_per_update;
  const size_t nb = s.experiment->spec().betas.size();
  const bool follow_student = c.dagger_from >= 0 && update >= c.dagger_from;
  sim::RolloutSearchConfig search;  // its discount the search's own
  search.lookahead = c.search.lookahead;
  search.samples = c.search.samples;
  search.margin = c.search.margin;
  std::vector<EpisodeSteps> episodes(ne);
  parallel_for(
      static_cast<size_t>(ne), threads,
      [&](size_t k) {
        const std::uint64_t episode = static_cast<std::uint64_t>(update) * ne + k;
        const std::uint64_t seed = sim::derive_seed(c.seed, 1000000 + episode) | (1ULL << 40);
        PolicyPtr teacher = imitating ? make_baseline_policy(c.teacher) : nullptr;
        episodes[k] = run_rollout(s, model, (episode % nb), seed, c.reward_scale, teacher.get(),
                                  search, follow_student);
      },
      pinner);
  return episodes;
}

std::vector<double> greedy_eval(const Setup& s,
                                const std::shared_ptr<const inference::LearnedModel>& model,
                                const std::vector<std::uint64_t>& seeds, int threads,
                                const hw::ThreadPinner* pinner) {
  const size_t nb = s.experiment->spec().betas.size();
  std::vector<double> blocking(nb * seeds.size());
  parallel_for(
      blocking.size(), threads,
      [&](size_t i) {
        sim::Environment env(env_config(s, i / seeds.size()));
        inference::LearnedPolicy policy(model, "pacml:eval");
        blocking[i] = sim::run_episode(env, policy, seeds[i % seeds.size()]).stats.blocking_rate;
      },
      pinner);
  std::vector<double> out(nb, 0);
  for (size_t i = 0; i < blocking.size(); ++i)
    out[i / seeds.size()] += blocking[i] / static_cast<double>(seeds.size());
  return out;
}

}  // namespace pacml::model::ppo
