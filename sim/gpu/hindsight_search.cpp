#include "sim/gpu/hindsight_search.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

#include "core/gpu/features.h"
#include "sim/report/progress.h"

namespace pacml::gpu {
namespace {

using Chooser = std::function<int(const DecisionInput&, Rng&)>;

// A replay's decisions in the order it makes them (with immediate admission
// the d-th is job d's): those before forced.size() take the choices made;
// the next one asks `next` (the base when null); the rest follow the base.
Policy scripted_policy(const std::vector<int>& forced, const Chooser& next, const Policy& base,
                       size_t& decision) {
  return Policy::of_chooser("rollout",
                            [&forced, &next, &base, &decision](const DecisionInput& in, Rng& rng) {
                              const size_t d = decision++;
                              if (d < forced.size()) return forced[d];
                              if (d == forced.size() && next) return next(in, rng);
                              return choose_gpus(base, in, rng);
                            });
}

// What a decision offers: the actions the learned policy could take there,
// the base's, and when it is made.
struct Offer {
  std::vector<int> actions;
  int base_action = 0;
  int followed = 0;  // what the replay of the choices takes there
  double now = 0;
};

// `follow`: the policy whose decisions are labelled (null: the search's own).
Offer offer_at(const DecisionInput& in, const Policy& base, const Policy* follow, Rng& rng) {
  Offer o;
  const DecisionFeatures f = decision_features(in);
  for (size_t a = 0; a < f.gpus.size(); ++a)
    o.actions.push_back(gpus_for_action(f, static_cast<int>(a)));
  o.now = in.now;
  o.base_action = choose_gpus(base, in, rng);
  o.followed = follow ? choose_gpus(*follow, in, rng) : o.base_action;
  return o;
}

// The decisions after the choices made, as the replay at `at` (which has
// made `made` decisions) goes on with them and then the base, up to job
// `end`: what each offers, up to and including the first with a choice to
// make. (While it waits for GPUs a queued job is decided again and again
// with nothing to choose: those are taken in one go.)
std::vector<Offer> next_offers(const ReplayCursor& at, size_t made, size_t end,
                               const std::vector<int>& chosen,
                               const HindsightSearchOptions& options, const Policy* follow) {
  std::vector<Offer> offers;
  bool open = true;
  size_t decision = made;
  const Policy probe = Policy::of_chooser("probe", [&](const DecisionInput& in, Rng& rng) {
    const size_t d = decision++;
    if (d < chosen.size()) return chosen[d];
    if (!open) return choose_gpus(options.base, in, rng);
    offers.push_back(offer_at(in, options.base, follow, rng));
    open = offers.back().actions.size() <= 1;
    return offers.back().followed;
  });
  ReplayCursor fork(at, probe, end, {});
  fork.run_to_end();
  return offers;
}

// Deadlines met among jobs `from` on, outcomes final after `at`, when the
// replay at `at` (which has made `made` decisions) goes on with the choices
// made, `next` for the decision after them and the base after it, up to
// job `end`. (With a queue, `from` is 0: the jobs final before `at` count
// alike for every action tried.)
long met_in_fork(const ReplayCursor& at, size_t made, const std::vector<int>& chosen, size_t end,
                 const Chooser& next, const HindsightSearchOptions& options, long from) {
  size_t decision = made;
  long met = 0;
  ReplayCursor fork(at, scripted_policy(chosen, next, options.base, decision), end,
                    [&](long index, const JobOutcome& o) { met += index >= from && o.met; });
  fork.run_to_end();
  return met;
}

// A replay whose d-th decision takes chosen[d] (`made` counts them).
ReplayConfig choices_config(const std::vector<int>& chosen, size_t& made,
                            const HindsightSearchOptions& options) {
  ReplayConfig config;
  config.admission = options.admission;
  config.order = options.order;
  config.seed = options.seed;
  config.policy = Policy::of_chooser("rollout", [&chosen, &made](const DecisionInput&, Rng&) {
    if (made >= chosen.size()) throw std::logic_error("hindsight search: a decision not made yet");
    return chosen[made++];
  });
  return config;
}

// The replay of the choices made, stepped by the search only over events
// whose decisions are made.
ReplayCursor replay_of_choices(const std::vector<Job>& jobs, DurationModel& durations,
                               const std::vector<int>& chosen, size_t& made,
                               const HindsightSearchOptions& options) {
  return ReplayCursor(jobs, jobs.size(), durations, choices_config(chosen, made, options));
}

// Decision by decision with a queue (hindsight_search.h). Each probe and
// rollout forks the replay of the choices made, kept at an event before the
// decision searched (the same rollouts as replaying the trace so far).
std::vector<int> search_queue(const std::vector<Job>& jobs, DurationModel& durations,
                              const HindsightSearchOptions& options, const Policy* follow,
                              std::vector<int>& best_actions) {
  std::vector<int> chosen;
  const size_t n = jobs.size(), lookahead = static_cast<size_t>(options.lookahead);
  sim::ProgressBar bar("hindsight search", n, options.progress);
  size_t end = std::min(n, lookahead + 1);
  auto arrived_by = [&](double t) {
    return static_cast<size_t>(
        std::upper_bound(jobs.begin(), jobs.end(), t,
                         [](double at, const Job& j) { return at < j.submit; }) -
        jobs.begin());
  };
  size_t made = 0;  // decisions the replay of the choices has made
  ReplayCursor replay = replay_of_choices(jobs, durations, chosen, made, options);
  for (;;) {
    // The next decisions, kept while no arrival left out of the replay
    // could have come before them.
    const std::vector<Offer> offers = next_offers(replay, made, end, chosen, options, follow);
    size_t valid = 0;
    while (valid < offers.size() && (end == n || offers[valid].now < jobs[end].submit)) ++valid;
    if (valid == 0) {
      if (end == n) break;  // no decision left
      end = std::min(n, 2 * end);
      continue;
    }
    size_t k = 0;
    for (; k < valid && offers[k].actions.size() <= 1; ++k) {
      chosen.push_back(offers[k].followed);
      best_actions.push_back(offers[k].base_action);
    }
    bar.update(arrived_by(offers[k == valid ? k - 1 : k].now));
    if (k == valid) continue;
    const Offer& o = offers[k];
    // Every decision of the events before this one's time is made.
    while (replay.next_event_time() < o.now) replay.step();
    end = std::max(end, std::min(n, arrived_by(o.now) + lookahead));
    int best = o.base_action;
    long best_met = met_in_fork(replay, made, chosen, end, nullptr, options, 0);
    for (int action : o.actions) {
      if (action == o.base_action) continue;
      const Chooser take = [action](const DecisionInput&, Rng&) { return action; };
      const long met = met_in_fork(replay, made, chosen, end, take, options, 0);
      if (met > best_met) best = action, best_met = met;
    }
    chosen.push_back(follow ? o.followed : best);
    best_actions.push_back(best);
  }
  bar.finish();
  return chosen;
}

// Job by job with immediate admission (hindsight_search.h): the replay of
// the choices made stops before each arrival, and each action is tried on a
// fork of it (the same rollouts as replaying the trace so far each time).
std::vector<int> search_immediate(const std::vector<Job>& jobs, DurationModel& durations,
                                  const HindsightSearchOptions& options, const Policy* follow,
                                  std::vector<int>& best_actions) {
  std::vector<int> chosen;
  chosen.reserve(jobs.size());
  sim::ProgressBar bar("hindsight search", jobs.size(), options.progress);
  size_t made = 0;  // decisions the replay of the choices has made
  ReplayCursor replay = replay_of_choices(jobs, durations, chosen, made, options);
  for (size_t i = 0; i < jobs.size(); ++i) {
    while (!replay.next_is_arrival()) replay.step();
    const size_t end = std::min(jobs.size(), i + 1 + static_cast<size_t>(options.lookahead));
    const long from = static_cast<long>(i);
    // The base's action and the candidates, read where job i is decided.
    Offer o;
    const Chooser probe = [&](const DecisionInput& in, Rng& rng) {
      o = offer_at(in, options.base, follow, rng);
      return o.base_action;
    };
    long best_met = met_in_fork(replay, i, chosen, end, probe, options, from);
    int best = o.base_action;
    for (int action : o.actions) {
      if (action == o.base_action) continue;
      const Chooser take = [action](const DecisionInput&, Rng&) { return action; };
      const long met = met_in_fork(replay, i, chosen, end, take, options, from);
      if (met > best_met) best = action, best_met = met;
    }
    chosen.push_back(follow ? o.followed : best);
    best_actions.push_back(best);
    replay.step();  // job i arrives and takes it
    bar.update(i + 1);
  }
  bar.finish();
  return chosen;
}

std::vector<int> search(const std::vector<Job>& jobs, DurationModel& durations,
                        const HindsightSearchOptions& options, const Policy* follow,
                        std::vector<int>& best_actions) {
  return options.admission == Admission::kImmediate
             ? search_immediate(jobs, durations, options, follow, best_actions)
             : search_queue(jobs, durations, options, follow, best_actions);
}

}  // namespace

ReplayResult hindsight_search(const std::vector<Job>& jobs, DurationModel& durations,
                              const HindsightSearchOptions& options) {
  std::vector<int> best_actions;
  const std::vector<int> chosen = search(jobs, durations, options, nullptr, best_actions);
  size_t made = 0;
  ReplayResult result = replay_on_gpus(jobs, durations, choices_config(chosen, made, options));
  result.stats.policy =
      "hindsight(" + options.base.name + ", " + std::to_string(options.lookahead) + ")";
  return result;
}

std::vector<int> hindsight_labels(const std::vector<Job>& jobs, DurationModel& durations,
                                  const HindsightSearchOptions& options, const Policy* follow) {
  std::vector<int> best_actions;
  search(jobs, durations, options, follow, best_actions);
  return best_actions;
}

}  // namespace pacml::gpu
