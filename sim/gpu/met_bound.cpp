#include "sim/gpu/met_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/util/error.h"

namespace pacml::sim {
namespace {

// A GPU count that meets the job's deadline on an empty cluster, and its run.
struct Run {
  int gpus;
  double seconds;
};

// The job's runs that meet its deadline, fewest GPUs first, each strictly
// shorter than the ones before: a count with more GPUs and no shorter run
// never holds fewer GPU-seconds in a window, so it cannot lower a cost.
std::vector<Run> useful_runs(const GpuJob& job, DurationModel& durations, int cluster_gpus) {
  std::vector<Run> runs;
  for (int k = 1; k <= cluster_gpus; ++k) {
    const double d = run_seconds(durations, job, k);
    if (!std::isfinite(d) || job.submit + d > job.deadline) continue;
    if (runs.empty() || d < runs.back().seconds) runs.push_back({k, d});
  }
  return runs;
}

// The least GPU-seconds the job holds before `end` if it is met.
double least_cost(const GpuJob& job, const std::vector<Run>& runs, Admission admission,
                  double end) {
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
double least_held(const GpuJob& job, const std::vector<Run>& runs, Admission admission,
                  double end) {
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

}  // namespace

MetBound met_upper_bound(const std::vector<GpuJob>& jobs, DurationModel& durations,
                         Admission admission, const MetBoundOptions& options) {
  if (!(options.step > 0) || !(options.max_window >= options.step))
    throw InputError("met bound", "window step must be > 0 and at most the longest window");
  MetBound bound;
  bound.jobs = static_cast<long>(jobs.size());
  if (jobs.empty()) return bound;
  const int cluster_gpus = durations.cluster().num_gpus();
  // Servable jobs by the bin of their submission.
  const double origin = std::floor(jobs.front().submit / options.step) * options.step;
  std::vector<std::vector<long>> bins;
  std::vector<std::vector<Run>> runs(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    if (j > 0 && jobs[j].submit < jobs[j - 1].submit)
      throw InputError(jobs[j].source, "jobs must be in submission order");
    runs[j] = useful_runs(jobs[j], durations, cluster_gpus);
    if (runs[j].empty()) {
      ++bound.unservable;
      continue;
    }
    const auto b = static_cast<size_t>((jobs[j].submit - origin) / options.step);
    if (bins.size() <= b) bins.resize(b + 1);
    bins[b].push_back(static_cast<long>(j));
  }
  // most[i]: the fewest met jobs any partition of bins [0, i) into windows
  // allows (each window counts its cheapest jobs that fit).
  const size_t n = bins.size();
  const auto longest = static_cast<size_t>(options.max_window / options.step);
  std::vector<long> most(n + 1, std::numeric_limits<long>::max());
  most[0] = 0;
  std::vector<double> costs, held;  // of the window's jobs, sorted
  for (size_t i = 1; i <= n; ++i) {
    const double end = origin + static_cast<double>(i) * options.step;
    costs.clear(), held.clear();
    for (size_t width = 1; width <= std::min(longest, i); ++width) {
      const size_t first = i - width;
      for (long j : bins[first]) {
        const GpuJob& job = jobs[static_cast<size_t>(j)];
        const std::vector<Run>& r = runs[static_cast<size_t>(j)];
        insert_sorted(costs, least_cost(job, r, admission, end));
        insert_sorted(held, least_held(job, r, admission, end));
      }
      // Both hold for the jobs met: their GPU-seconds in the window, and
      // their GPUs at its end.
      const double budget =
          static_cast<double>(cluster_gpus) * static_cast<double>(width) * options.step;
      const long met = std::min(cheapest_that_fit(costs, budget),
                                cheapest_that_fit(held, static_cast<double>(cluster_gpus)));
      most[i] = std::min(most[i], most[first] + met);
    }
  }
  bound.met_at_most = most[n];
  bound.rate = static_cast<double>(bound.met_at_most) / static_cast<double>(bound.jobs);
  return bound;
}

}  // namespace pacml::sim
