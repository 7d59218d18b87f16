#include "sim/gpu/hindsight_search.h"

#include <algorithm>
#include <functional>
#include <string>

#include "core/features/gpu_features.h"
#include "sim/report/progress.h"

namespace pacml::sim {
namespace {

using Chooser = std::function<int(const GpuDecisionInput&, Rng&)>;

// Immediate admission decides each job once, at its arrival, in order: the
// d-th decision is job d's. Decisions before forced.size() take the choices
// made; the next one asks `next`; the rest follow the base.
GpuReplayConfig scripted(const std::vector<int>& forced, const Chooser& next, const GpuPolicy& base,
                         std::uint64_t seed, size_t& decision) {
  GpuReplayConfig config;
  config.admission = Admission::kImmediate;
  config.seed = seed;
  config.policy.kind = GpuPolicy::Kind::kChooser;
  config.policy.name = "rollout";
  config.policy.chooser = [&forced, &next, &base, &decision](const GpuDecisionInput& in, Rng& rng) {
    const size_t d = decision++;
    if (d < forced.size()) return forced[d];
    if (d == forced.size() && next) return next(in, rng);
    return choose_gpus(base, in, rng);
  };
  return config;
}

// Deadlines met among jobs [from, end) when jobs [0, end) are replayed
// with the choices made, `next` for job from, and the base after it.
long met_in_rollout(const std::vector<GpuJob>& jobs, size_t end, DurationModel& durations,
                    const std::vector<int>& forced, const Chooser& next,
                    const HindsightSearchOptions& options) {
  size_t decision = 0, fed = 0;
  const GpuReplayConfig config = scripted(forced, next, options.base, options.seed, decision);
  long met = 0;
  const long from = static_cast<long>(forced.size());
  replay_stream(
      [&](GpuJob& job) {
        if (fed >= end) return false;
        job = jobs[fed++];
        return true;
      },
      durations, config,
      [&](long index, const GpuJobOutcome& o) { met += index >= from && o.met; });
  return met;
}

}  // namespace

GpuReplayResult hindsight_search(const std::vector<GpuJob>& jobs, DurationModel& durations,
                                 const HindsightSearchOptions& options) {
  std::vector<int> chosen;
  chosen.reserve(jobs.size());
  ProgressBar bar("hindsight search", jobs.size(), options.progress);
  for (size_t i = 0; i < jobs.size(); ++i) {
    const size_t end = std::min(jobs.size(), i + 1 + static_cast<size_t>(options.lookahead));
    // The base's action and the candidates, read where job i is decided.
    int base_action = 0;
    std::vector<int> actions;
    const Chooser probe = [&](const GpuDecisionInput& in, Rng& rng) {
      const features::GpuDecisionFeatures f = features::gpu_decision_features(in);
      for (size_t a = 0; a < f.gpus.size(); ++a)
        actions.push_back(features::gpus_for_action(f, static_cast<int>(a)));
      return base_action = choose_gpus(options.base, in, rng);
    };
    long best_met = met_in_rollout(jobs, end, durations, chosen, probe, options);
    int best = base_action;
    for (int action : actions) {
      if (action == base_action) continue;
      const Chooser take = [action](const GpuDecisionInput&, Rng&) { return action; };
      const long met = met_in_rollout(jobs, end, durations, chosen, take, options);
      if (met > best_met) best = action, best_met = met;
    }
    chosen.push_back(best);
    bar.update(i + 1);
  }
  bar.finish();
  size_t decision = 0;
  const GpuReplayConfig config = scripted(chosen, nullptr, options.base, options.seed, decision);
  GpuReplayResult result = replay_on_gpus(jobs, durations, config);
  result.stats.policy =
      "hindsight(" + options.base.name + ", " + std::to_string(options.lookahead) + ")";
  return result;
}

}  // namespace pacml::sim
