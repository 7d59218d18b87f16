#include "sim/experiment/blocking_bound.h"

#include <cmath>

#include "core/placement/action_mask.h"
#include "sim/engine/episode.h"

namespace pacml::sim {
namespace {

// Whether some action serves the job on obs.cluster, which episode_bound keeps
// empty by declining every job.
bool servable_on_empty_cluster(const Observation& obs, const JctEstimator& estimator,
                               double horizon, LookaheadCache* cache) {
  for (int a : valid_actions(obs.mask)) {
    if (a == 0) continue;
    const Estimate e = estimator.estimate(*obs.job->graph, a, obs.job->beta, *obs.cluster, cache);
    if (e.accepted() && (!std::isfinite(horizon) || obs.time + e.jct <= horizon)) return true;
  }
  return false;
}

}  // namespace

EpisodeBound episode_bound(const Experiment& experiment, size_t beta, std::uint64_t seed) {
  // The environment's own lookahead cache: per episode in the reference
  // profile (doc/MODEL.md §6), the experiment's shared one in the physical.
  Environment env(experiment.environment_config(beta, false, false));
  EpisodeBound bound;
  bound.beta_dist = experiment.beta_label(beta);
  bound.seed = seed;
  for (const Observation* obs = &env.reset(seed); !obs->done; obs = &env.observe()) {
    if (!servable_on_empty_cluster(*obs, env.estimator(), env.config().horizon, env.cache()))
      ++bound.unservable;
    env.step(0);
  }
  bound.arrived = env.result().stats.arrived;
  return bound;
}

std::vector<EpisodeBound> experiment_bounds(const Experiment& experiment, int threads) {
  const ExperimentSpec& spec = experiment.spec();
  std::vector<EpisodeBound> bounds(spec.betas.size() * spec.seeds.size());
  for_each_in_parallel(bounds.size(), threads, [&](size_t i) {
    bounds[i] = episode_bound(experiment, i / spec.seeds.size(), spec.seeds[i % spec.seeds.size()]);
  });
  return bounds;
}

std::vector<BoundSummary> summarize_bounds(const std::vector<EpisodeBound>& bounds) {
  std::vector<BoundSummary> out;
  std::vector<std::vector<double>> rates;
  for (const EpisodeBound& b : bounds) {
    size_t i = 0;
    while (i < out.size() && out[i].beta_dist != b.beta_dist) ++i;
    if (i == out.size()) {
      out.push_back({b.beta_dist, 0, {}});
      rates.emplace_back();
    }
    rates[i].push_back(b.rate());
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].seeds = static_cast<int>(rates[i].size());
    out[i].rate = summarize_values(rates[i]);
  }
  return out;
}

nlohmann::json bound_summary_to_json(const BoundSummary& b) {
  return {{"bound", "unservable_on_empty_cluster"},
          {"beta_dist", b.beta_dist},
          {"seeds", b.seeds},
          {"blocking_rate_mean", b.rate.mean},
          {"blocking_rate_ci95", b.rate.ci95}};
}

}  // namespace pacml::sim
