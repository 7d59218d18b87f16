#include "core/features/gpu_features.h"

#include <algorithm>
#include <cmath>

#include "core/parallel/parallel_job.h"

namespace pacml::features {

const std::vector<std::string>& gpu_job_scalar_names() {
  static const std::vector<std::string> names = {
      "run_hours_log",        // log10 of the run on the fewest GPUs, hours: (x+3)/6
      "time_left_ratio_log",  // log2(time to deadline / run on the fewest) / 4
      "doubling_efficiency",  // run(fewest) / (2 run(2 fewest))
      "fewest_share",         // fewest GPUs / cluster GPUs
      "min_cost_log",         // log10(fewest × run / cluster GPU-hours): (x+4)/5
      "requested_share",      // requested GPUs / cluster GPUs
      "family_cnn",          "family_transformer", "family_rnn"};
  return names;
}

const std::vector<std::string>& gpu_context_scalar_names() {
  static const std::vector<std::string> names = {
      "free_share",          // free GPUs / cluster GPUs
      "free_servers_share",  // wholly free servers / servers
      "queued_jobs_log",     // log10(1 + waiting jobs) / 3
      "queued_gpus_share",   // GPUs the waiting jobs asked for / cluster GPUs / 4
      "recent_load",         // offered load over the last day / 3
      "queue_admission",     // 1: a job not started now waits
      "cluster_gpus_log"};   // log2(cluster GPUs) / 12
  return names;
}

const std::vector<std::string>& gpu_action_scalar_names() {
  static const std::vector<std::string> names = {
      "start",             // 1 for a GPU count, 0 for "do not start now"
      "gpus_share",        // k / cluster GPUs
      "gpus_log",          // log2(k) / 12
      "cost_log",          // log10(k × run(k) / cluster GPU-hours): (x+4)/5
      "extra_cost",        // k run(k) / (fewest run(fewest)) − 1
      "slack_after",       // time left after the run / time to deadline
      "free_share_taken",  // k / free GPUs
      "server_aligned"};   // k divides or is a multiple of the GPUs per server
  return names;
}

nlohmann::json gpu_schema_json() {
  return {{"version", kGpuSchemaVersion},
          {"job", gpu_job_scalar_names()},
          {"context", gpu_context_scalar_names()},
          {"action", gpu_action_scalar_names()}};
}

namespace {

float clip01(double x) {
  return std::isfinite(x) ? static_cast<float>(std::clamp(x, 0.0, 1.0)) : (x > 0 ? 1.f : 0.f);
}

// Cluster GPU-hours as the unit of cost, on a log scale from 1e-4 to 10.
float cost_log(double gpu_seconds, int cluster_gpus) {
  return clip01((std::log10(gpu_seconds / (cluster_gpus * 3600.0)) + 4) / 5);
}

bool meets(const GpuDecisionInput& in, int k) {
  const double s = in.seconds(k);
  return std::isfinite(s) && in.now + s <= in.deadline;
}

int fewest_meeting(const GpuDecisionInput& in) {
  for (int k = 1; k <= in.free_gpus; ++k)
    if (meets(in, k) && in.startable(k)) return k;
  return 0;
}

// Among powers of two and whole servers (where the fastest count lies in
// practice), so that a decision costs tens of estimates, not one per GPU.
int fastest_meeting(const GpuDecisionInput& in, int per_server) {
  int best = 0;
  double best_seconds = INFINITY;
  auto consider = [&](int k) {
    const double s = in.seconds(k);
    if (s < best_seconds && meets(in, k) && in.startable(k)) best = k, best_seconds = s;
  };
  for (int k = 1; k <= in.free_gpus; k *= 2) consider(k);
  for (int k = per_server; k <= in.free_gpus; k += per_server) consider(k);
  return best;
}

int next_power_of_two(int k) {
  int p = 1;
  while (p < k) p *= 2;
  return p;
}

// The candidate counts, fewest first (doc/LEARNING.md §7).
std::vector<int> candidate_gpus(const GpuDecisionInput& in, int fewest, int per_server) {
  std::vector<int> gpus{0};
  if (fewest == 0) return gpus;
  const int whole_servers = (fewest + per_server - 1) / per_server * per_server;
  for (int k : {fewest, next_power_of_two(fewest), whole_servers, 2 * fewest,
                fastest_meeting(in, per_server)}) {
    if (static_cast<int>(gpus.size()) > kMaxStartActions) break;
    if (k < 1 || k > in.free_gpus || std::count(gpus.begin(), gpus.end(), k)) continue;
    if (meets(in, k) && in.startable(k)) gpus.push_back(k);
  }
  return gpus;
}

std::vector<float> job_scalars(const GpuDecisionInput& in, int fewest, int cluster_gpus) {
  std::vector<float> x(kGpuJobScalars, 0.f);
  if (fewest > 0) {
    const double run = in.seconds(fewest);
    x[0] = clip01((std::log10(run / 3600) + 3) / 6);
    x[1] = clip01(std::log2((in.deadline - in.now) / run) / 4);
    const double doubled = in.seconds(2 * fewest);
    x[2] = std::isfinite(doubled) && doubled > 0 ? clip01(run / (2 * doubled)) : 0.f;
    x[3] = clip01(static_cast<double>(fewest) / cluster_gpus);
    x[4] = cost_log(fewest * run, cluster_gpus);
  }
  x[5] = clip01(static_cast<double>(in.requested) / cluster_gpus);
  if (in.job) {
    const ModelFamily f = in.job->family();
    x[6] = f == ModelFamily::kCnn, x[7] = f == ModelFamily::kTransformer,
    x[8] = f == ModelFamily::kRnn;
  }
  return x;
}

std::vector<float> context_scalars(const GpuDecisionInput& in, int cluster_gpus, int per_server) {
  const double servers = std::max(1, cluster_gpus / per_server);
  return {clip01(static_cast<double>(in.free_gpus) / cluster_gpus),
          clip01(in.free_servers / servers),
          clip01(std::log10(1.0 + in.queued_jobs) / 3),
          clip01(in.queued_gpus / cluster_gpus / 4),
          clip01(in.recent_load / 3),
          in.queue_admission ? 1.f : 0.f,
          clip01(std::log2(static_cast<double>(cluster_gpus)) / 12)};
}

void append_action_scalars(const GpuDecisionInput& in, int k, int fewest, int cluster_gpus,
                           int per_server, std::vector<float>& out) {
  if (k == 0) {
    out.insert(out.end(), kGpuActionScalars, 0.f);
    return;
  }
  const double run = in.seconds(k), least = fewest * in.seconds(fewest);
  const double left = in.deadline - in.now;
  out.push_back(1.f);
  out.push_back(clip01(static_cast<double>(k) / cluster_gpus));
  out.push_back(clip01(std::log2(static_cast<double>(k)) / 12));
  out.push_back(cost_log(k * run, cluster_gpus));
  out.push_back(clip01(k * run / least - 1));
  out.push_back(std::isfinite(left) ? clip01((left - run) / left) : 1.f);
  out.push_back(clip01(static_cast<double>(k) / std::max(1, in.free_gpus)));
  out.push_back(k % per_server == 0 || per_server % k == 0 ? 1.f : 0.f);
}

}  // namespace

JobFeatures gpu_job_features(const ParallelJob& job) {
  const JobGraphPtr graph = make_job_graph(*job.at_batch(job.global_batch()));
  return extract_job_features(*graph, EdgeSizeRule::kPhysical);
}

int gpus_for_action(const GpuDecisionFeatures& decision, int action) {
  if (action == 0 && decision.gpus.size() > 1) return kTurnAway;
  return decision.gpus[static_cast<size_t>(action)];
}

GpuDecisionFeatures gpu_decision_features(const GpuDecisionInput& in) {
  const int cluster_gpus = std::max(1, in.cluster_gpus > 0 ? in.cluster_gpus : in.free_gpus);
  const int per_server = in.gpus_per_server > 0 ? in.gpus_per_server : cluster_gpus;
  GpuDecisionFeatures f;
  f.fewest = fewest_meeting(in);
  f.gpus = candidate_gpus(in, f.fewest, per_server);
  f.job = job_scalars(in, f.fewest, cluster_gpus);
  f.context = context_scalars(in, cluster_gpus, per_server);
  for (int k : f.gpus) append_action_scalars(in, k, f.fewest, cluster_gpus, per_server, f.actions);
  return f;
}

}  // namespace pacml::features
