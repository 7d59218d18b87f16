#include "sim/gpu/met_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/util/error.h"

namespace pacml::gpu {
namespace {

// A GPU count that meets the job's deadline on an empty cluster, and its run.
struct Run {
  int gpus;
  double seconds;
};

// The job's runs that meet its deadline, fewest GPUs first, each strictly
// shorter than the ones before: a count with more GPUs and no shorter run
// never holds fewer GPU-seconds in a window, so it cannot lower a cost.
std::vector<Run> useful_runs(const Job& job, DurationModel& durations, int cluster_gpus) {
  std::vector<Run> runs;
  for (int k = 1; k <= cluster_gpus; ++k) {
    const double d = run_seconds(durations, job, k);
    if (!std::isfinite(d) || job.submit + d > job.deadline) continue;
    if (runs.empty() || d < runs.back().seconds) runs.push_back({k, d});
  }
  return runs;
}

// The least GPU-seconds the job holds before `end` if it is met.
double least_cost(const Job& job, const std::vector<Run>& runs, Admission admission, double end) {
  double best = std::numeric_limits<double>::infinity();
  for (const Run& r : runs) {
    const double start = admission == Admission::kImmediate ? job.submit : job.deadline - r.seconds;
    const double overlap = std::clamp(end - start, 0.0, r.seconds);
    best = std::min(best, r.gpus * overlap);
  }
  return best;
}

// The fewest GPUs the job holds at `end` if it is met: a count's run is
// under way then whatever its start (it cannot have ended, and it must have
// begun), else 0.
double least_held(const Job& job, const std::vector<Run>& runs, Admission admission, double end) {
  double best = std::numeric_limits<double>::infinity();
  for (const Run& r : runs) {
    const double latest_start =
        admission == Admission::kImmediate ? job.submit : job.deadline - r.seconds;
    const bool under_way = job.submit + r.seconds > end && latest_start < end;
    best = std::min(best, under_way ? static_cast<double>(r.gpus) : 0.0);
  }
  return best;
}

void insert_sorted(std::vector<double>& v, double x) {
  v.insert(std::upper_bound(v.begin(), v.end(), x), x);
}

// How many of `costs` (sorted) fit in `budget` together: the cheapest first.
long cheapest_that_fit(const std::vector<double>& costs, double budget) {
  long n = 0;
  double used = 0;
  for (double c : costs) {
    if (used + c > budget) break;
    used += c, ++n;
  }
  return n;
}

// A met job run on k GPUs holds them at least while the run is under way
// whatever its start: from its start's latest (immediate: its submission a;
// queue: its deadline less d(k)) to a + d(k). At every such moment the runs
// under way fit in the C GPUs. The linear relaxation of "meet the most jobs,
// each on one of its deadline-meeting counts, under those constraints" is
// bounded by its dual at any multipliers y ≥ 0 on those moments,
//
//   C Σ_t y_t + Σ_j max(0, max over its counts k of 1 − k Σ_{t under way} y_t),
//
// which projected subgradient steps lower; every iterate is a valid bound
// (weak duality), and the least is kept. In a queue a job with room to
// start late enough to end before it could begin holds nothing here.
double under_way_bound(const std::vector<Job>& jobs, const std::vector<std::vector<Run>>& runs,
                       Admission admission, int cluster_gpus, int iterations) {
  // Run r of job j is under way during [from, until) whatever its start:
  // it starts at its submission a (immediate) or by its deadline D less the
  // run (queue), and ends after a + the run.
  const auto from = [&](size_t j, const Run& r) {
    return admission == Admission::kImmediate ? jobs[j].submit : jobs[j].deadline - r.seconds;
  };
  std::vector<double> times;  // where such intervals begin: the checkpoints
  for (size_t j = 0; j < jobs.size(); ++j)
    for (const Run& r : runs[j])
      if (from(j, r) < jobs[j].submit + r.seconds) times.push_back(from(j, r));
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  const auto at = [&](double t) {
    return static_cast<size_t>(std::lower_bound(times.begin(), times.end(), t) - times.begin());
  };
  struct Hold {
    size_t first, end;  // checkpoints [first, end) the run is under way at (none: equal)
    double gpus;
  };
  std::vector<std::vector<Hold>> holds;  // per servable job, per count
  for (size_t j = 0; j < jobs.size(); ++j) {
    if (runs[j].empty()) continue;
    holds.emplace_back();
    for (const Run& r : runs[j]) {
      const size_t first = at(from(j, r));
      holds.back().push_back(
          {first, std::max(first, at(jobs[j].submit + r.seconds)), static_cast<double>(r.gpus)});
    }
  }
  const size_t m = times.size();
  std::vector<double> y(m, 0.0), prefix(m + 1), step(m + 1);
  const double c = cluster_gpus;
  double best = static_cast<double>(holds.size());  // y = 0: every job met
  for (int it = 0; it < iterations; ++it) {
    prefix[0] = 0;
    for (size_t t = 0; t < m; ++t) prefix[t + 1] = prefix[t] + y[t];
    double value = c * prefix[m];
    std::fill(step.begin(), step.end(), 0.0);
    for (const std::vector<Hold>& job : holds) {
      const Hold* chosen = nullptr;
      double gain = 0;
      for (const Hold& h : job) {
        const double g = 1 - h.gpus * (prefix[h.end] - prefix[h.first]);
        if (g > gain) gain = g, chosen = &h;
      }
      if (!chosen) continue;
      value += gain;
      step[chosen->first] += chosen->gpus, step[chosen->end] -= chosen->gpus;
    }
    best = std::min(best, value);
    // Subgradient: C − the GPUs the chosen runs hold, per checkpoint.
    double norm = 0, load = 0;
    for (size_t t = 0; t < m; ++t) {
      load += step[t];
      step[t] = c - load;
      norm += step[t] * step[t];
    }
    if (norm == 0) break;
    const double rate = 2.0 / (c * std::sqrt(norm) * std::sqrt(1.0 + it));
    for (size_t t = 0; t < m; ++t) y[t] = std::max(0.0, y[t] - rate * step[t]);
  }
  return best;
}

}  // namespace

MetBound met_upper_bound(const std::vector<Job>& jobs, DurationModel& durations,
                         Admission admission, const MetBoundOptions& options) {
  if (!(options.step > 0) || !(options.max_window >= options.step))
    throw InputError("met bound", "window step must be > 0 and at most the longest window");
  MetBound bound;
  bound.jobs = static_cast<long>(jobs.size());
  if (jobs.empty()) return bound;
  const int cluster_gpus = durations.cluster().num_gpus();
  // A grid of at most kMaxBins windows' worth (a coarser one is still a
  // valid bound): a trace spanning centuries must not ask for terabytes.
  constexpr double kMaxBins = 1 << 20;
  const double span = jobs.back().submit - jobs.front().submit;
  const double step = std::max(options.step, span / kMaxBins);
  const double origin = std::floor(jobs.front().submit / step) * step;
  std::vector<std::vector<long>> bins;  // servable jobs by the bin of their submission
  std::vector<std::vector<Run>> runs(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    if (j > 0 && jobs[j].submit < jobs[j - 1].submit)
      throw InputError(jobs[j].source, "jobs must be in submission order");
    runs[j] = useful_runs(jobs[j], durations, cluster_gpus);
    if (runs[j].empty()) {
      ++bound.unservable;
      continue;
    }
    const auto b = static_cast<size_t>((jobs[j].submit - origin) / step);
    if (bins.size() <= b) bins.resize(b + 1);
    bins[b].push_back(static_cast<long>(j));
  }
  // most[i]: the fewest met jobs any partition of bins [0, i) into windows
  // allows (each window counts its cheapest jobs that fit).
  const size_t n = bins.size();
  const auto longest = std::max<size_t>(1, static_cast<size_t>(options.max_window / step));
  std::vector<long> most(n + 1, std::numeric_limits<long>::max());
  most[0] = 0;
  std::vector<double> costs, held;  // of the window's jobs, sorted
  for (size_t i = 1; i <= n; ++i) {
    const double end = origin + static_cast<double>(i) * step;
    costs.clear(), held.clear();
    for (size_t width = 1; width <= std::min(longest, i); ++width) {
      const size_t first = i - width;
      for (long j : bins[first]) {
        const Job& job = jobs[static_cast<size_t>(j)];
        const std::vector<Run>& r = runs[static_cast<size_t>(j)];
        insert_sorted(costs, least_cost(job, r, admission, end));
        insert_sorted(held, least_held(job, r, admission, end));
      }
      // Both hold for the jobs met: their GPU-seconds in the window, and
      // their GPUs at its end.
      const double budget = static_cast<double>(cluster_gpus) * static_cast<double>(width) * step;
      const long met = std::min(cheapest_that_fit(costs, budget),
                                cheapest_that_fit(held, static_cast<double>(cluster_gpus)));
      most[i] = std::min(most[i], most[first] + met);
    }
  }
  bound.met_at_most = most[n];
  const double lp = under_way_bound(jobs, runs, admission, cluster_gpus, options.iterations);
  // A count of jobs: rounding down after a margin for the sums' rounding.
  bound.met_at_most = std::min(bound.met_at_most, static_cast<long>(std::floor(lp + 1e-6)));
  bound.rate = static_cast<double>(bound.met_at_most) / static_cast<double>(bound.jobs);
  return bound;
}

}  // namespace pacml::gpu
