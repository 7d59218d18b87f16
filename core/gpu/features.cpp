#include "core/gpu/features.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "core/parallel/parallel_job.h"

namespace pacml::gpu {

const std::vector<std::string>& job_scalar_names() {
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

const std::vector<std::string>& context_scalar_names() {
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

const std::vector<std::string>& action_scalar_names() {
  static const std::vector<std::string> names = {
      "start",             // 1 for a GPU count, 0 for "do not start now"
      "gpus_share",        // k / cluster GPUs
      "gpus_log",          // log2(k) / 12
      "cost_log",          // log10(k × run(k) / cluster GPU-hours): (x+4)/5
      "extra_cost",        // k run(k) / (fewest run(fewest)) − 1
      "slack_after",       // time left after the run / time to deadline
      "free_share_taken",  // k / free GPUs
      "server_aligned",    // k divides or is a multiple of the GPUs per server
      // The physical model's plan for k GPUs (DurationModel::traits):
      "memory_share",   // bytes on its fullest GPU / a GPU's memory
      "strategy_data",  // its strategy, one of these five
      "strategy_tensor", "strategy_hybrid", "strategy_pipeline", "strategy_op"};
  return names;
}

nlohmann::json schema_json() {
  return {{"version", kSchemaVersion},
          {"job", job_scalar_names()},
          {"context", context_scalar_names()},
          {"action", action_scalar_names()}};
}

namespace {

// x in [0, 1] as a float; above 1 (and +inf) 1, below 0 (and -inf, NaN) 0.
float clip01(double x) {
  if (x >= 0 && x <= 1) return static_cast<float>(x);  // false for NaN
  return x > 1 ? 1.f : 0.f;
}

// Cluster GPU-hours as the unit of cost, on a log scale from 1e-4 to 10.
float cost_log(double gpu_seconds, int cluster_gpus) {
  return clip01((std::log10(gpu_seconds / (cluster_gpus * 3600.0)) + 4) / 5);
}

// What in.seconds and in.startable answer, each asked once per GPU count in
// a decision: the search asks again for the same counts (the fewest, the
// fastest, twice the fewest, each candidate's features), and every answer
// is a call into the caller's duration model or placement. Slots are
// stamped with the decision, so a decision starts empty without clearing
// them; per thread, so that a warm decision allocates nothing.
class Answers {
 public:
  explicit Answers(const DecisionInput& in) : in_(in), table_(table()) {
    if (++table_.stamp == 0) {  // wrapped: stale stamps could match again
      table_.slots.assign(table_.slots.size(), Slot{});
      table_.stamp = 1;
    }
  }
  Answers(const Answers&) = delete;
  Answers& operator=(const Answers&) = delete;

  const DecisionInput& input() const { return in_; }
  double seconds(int k) {
    Slot* s = slot(k);
    if (!s) return in_.seconds(k);
    if (s->seconds_stamp != table_.stamp)
      s->seconds = in_.seconds(k), s->seconds_stamp = table_.stamp;
    return s->seconds;
  }
  bool startable(int k) {
    Slot* s = slot(k);
    if (!s) return in_.startable(k);
    if (s->startable_stamp != table_.stamp)
      s->startable = in_.startable(k), s->startable_stamp = table_.stamp;
    return s->startable;
  }
  // What the plan for k says besides its time, or nothing known.
  PlanTraits traits(int k) const { return in_.traits ? in_.traits(k) : PlanTraits{}; }
  bool meets(int k) {
    const double s = seconds(k);
    return std::isfinite(s) && in_.now + s <= in_.deadline;
  }
  // A count met while searching, with its run and its place in the search.
  struct Count {
    double seconds;
    int position, k;
  };
  // A buffer for the search's counts, reused by every decision of the thread.
  std::vector<Count>& counts() { return table_.counts; }

 private:
  struct Slot {
    unsigned seconds_stamp = 0, startable_stamp = 0;
    double seconds = 0;
    bool startable = false;
  };
  struct Table {
    unsigned stamp = 0;
    std::vector<Slot> slots;
    std::vector<Count> counts;
  };
  // Counts above it (a cluster larger than any built) are asked every time.
  static constexpr int kMaxSlot = 1 << 16;
  static Table& table() {
    thread_local Table t;
    return t;
  }
  Slot* slot(int k) {
    if (k < 0 || k > kMaxSlot) return nullptr;
    if (static_cast<size_t>(k) >= table_.slots.size()) table_.slots.resize(k + 1);
    return &table_.slots[static_cast<size_t>(k)];
  }
  const DecisionInput& in_;
  Table& table_;
};

int fewest_meeting(Answers& a) {
  for (int k = 1; k <= a.input().free_gpus; ++k)
    if (a.meets(k) && a.startable(k)) return k;
  return 0;
}

// Among powers of two and whole servers (where the fastest count lies in
// practice), so that a decision costs tens of estimates, not one per GPU:
// of the counts that meet the deadline and can start, the one with the
// shortest run, the first in that order (powers of two, then whole servers)
// on a tie. Whether a count can start is a placement search, so it is asked
// from the fastest count down rather than of every count.
int fastest_meeting(Answers& a, int per_server) {
  std::vector<Answers::Count>& meeting = a.counts();
  meeting.clear();
  const int free_gpus = a.input().free_gpus;
  auto consider = [&](int k) {
    if (a.meets(k)) meeting.push_back({a.seconds(k), static_cast<int>(meeting.size()), k});
  };
  for (int k = 1; k <= free_gpus; k *= 2) consider(k);
  for (int k = per_server; k <= free_gpus; k += per_server) consider(k);
  auto before = [](const Answers::Count& x, const Answers::Count& y) {
    return x.seconds < y.seconds || (x.seconds == y.seconds && x.position < y.position);
  };
  // In that order, the first that can start: often not the fastest on a busy
  // cluster, but one of the next few, so each is picked from the rest rather
  // than all sorted.
  for (auto rest = meeting.begin(); rest != meeting.end(); ++rest) {
    std::iter_swap(rest, std::min_element(rest, meeting.end(), before));
    if (a.startable(rest->k)) return rest->k;
  }
  return 0;
}

int next_power_of_two(int k) {
  int p = 1;
  while (p < k) p *= 2;
  return p;
}

// The candidate counts, fewest first (doc/LEARNING.md §7).
void candidate_gpus(Answers& a, int fewest, int per_server, std::vector<int>& gpus) {
  gpus.assign(1, 0);
  if (fewest == 0) return;
  const int whole_servers = (fewest + per_server - 1) / per_server * per_server;
  for (int k : {fewest, next_power_of_two(fewest), whole_servers, 2 * fewest,
                fastest_meeting(a, per_server)}) {
    if (static_cast<int>(gpus.size()) > kMaxStartActions) break;
    if (k < 1 || k > a.input().free_gpus || std::count(gpus.begin(), gpus.end(), k)) continue;
    if (a.meets(k) && a.startable(k)) gpus.push_back(k);
  }
}

constexpr int kMinCostLog = 4;  // job_scalar_names()[4]
constexpr int kStrategies = static_cast<int>(std::size(kConcreteStrategies));
static_assert(kActionScalars == 9 + kStrategies, "action_scalar_names");

void job_scalars(Answers& a, int fewest, int cluster_gpus, std::vector<float>& x) {
  const DecisionInput& in = a.input();
  x.assign(kJobScalars, 0.f);
  if (fewest > 0) {
    const double run = a.seconds(fewest);
    x[0] = clip01((std::log10(run / 3600) + 3) / 6);
    x[1] = clip01(std::log2((in.deadline - in.now) / run) / 4);
    const double doubled = a.seconds(2 * fewest);
    x[2] = std::isfinite(doubled) && doubled > 0 ? clip01(run / (2 * doubled)) : 0.f;
    x[3] = clip01(static_cast<double>(fewest) / cluster_gpus);
    x[kMinCostLog] = cost_log(fewest * run, cluster_gpus);
  }
  x[5] = clip01(static_cast<double>(in.requested) / cluster_gpus);
  if (in.job) {
    const ModelFamily f = in.job->family();
    x[6] = f == ModelFamily::kCnn, x[7] = f == ModelFamily::kTransformer,
    x[8] = f == ModelFamily::kRnn;
  }
}

void context_scalars(const DecisionInput& in, int cluster_gpus, int per_server,
                     std::vector<float>& out) {
  const double servers = std::max(1, cluster_gpus / per_server);
  out.resize(kContextScalars);
  float* x = out.data();
  x[0] = clip01(static_cast<double>(in.free_gpus) / cluster_gpus);
  x[1] = clip01(in.free_servers / servers);
  x[2] = clip01(std::log10(1.0 + in.queued_jobs) / 3);
  x[3] = clip01(in.queued_gpus / cluster_gpus / 4);
  x[4] = clip01(in.recent_load / 3);
  x[5] = in.queue_admission ? 1.f : 0.f;
  x[6] = clip01(std::log2(static_cast<double>(cluster_gpus)) / 12);
}

// Action k's kActionScalars into x. `fewest_cost` is the job scalar
// min_cost_log: the fewest count's cost_log, the same expression, not taken
// again.
void action_scalars(Answers& a, int k, int fewest, float fewest_cost, int cluster_gpus,
                    int per_server, float* x) {
  if (k == 0) {
    std::fill_n(x, kActionScalars, 0.f);
    return;
  }
  const DecisionInput& in = a.input();
  const double run = a.seconds(k), least = fewest * a.seconds(fewest);
  const double left = in.deadline - in.now;
  x[0] = 1.f;
  x[1] = clip01(static_cast<double>(k) / cluster_gpus);
  x[2] = clip01(std::log2(static_cast<double>(k)) / 12);
  x[3] = k == fewest ? fewest_cost : cost_log(k * run, cluster_gpus);
  x[4] = clip01(k * run / least - 1);
  x[5] = std::isfinite(left) ? clip01((left - run) / left) : 1.f;
  x[6] = clip01(static_cast<double>(k) / std::max(1, in.free_gpus));
  x[7] = k % per_server == 0 || per_server % k == 0 ? 1.f : 0.f;
  const PlanTraits plan = a.traits(k);
  x[8] = clip01(plan.memory_share);
  for (int s = 0; s < kStrategies; ++s) x[9 + s] = plan.strategy == kConcreteStrategies[s];
}

}  // namespace

features::JobFeatures job_features(const ParallelJob& job) {
  const JobGraphPtr graph = make_job_graph(*job.at_batch(job.global_batch()));
  return features::extract_job_features(*graph, EdgeSizeRule::kPhysical);
}

int gpus_for_action(const DecisionFeatures& decision, int action) {
  if (action == 0 && decision.gpus.size() > 1) return kTurnAway;
  return decision.gpus[static_cast<size_t>(action)];
}

DecisionFeatures decision_features(const DecisionInput& in) {
  DecisionFeatures f;
  decision_features(in, f);
  return f;
}

void decision_features(const DecisionInput& in, DecisionFeatures& f) {
  const int cluster_gpus = std::max(1, in.cluster_gpus > 0 ? in.cluster_gpus : in.free_gpus);
  const int per_server = in.gpus_per_server > 0 ? in.gpus_per_server : cluster_gpus;
  Answers a(in);
  f.fewest = fewest_meeting(a);
  candidate_gpus(a, f.fewest, per_server, f.gpus);
  job_scalars(a, f.fewest, cluster_gpus, f.job);
  context_scalars(in, cluster_gpus, per_server, f.context);
  f.actions.resize(f.gpus.size() * kActionScalars);
  for (size_t i = 0; i < f.gpus.size(); ++i)
    action_scalars(a, f.gpus[i], f.fewest, f.job[kMinCostLog], cluster_gpus, per_server,
                   f.actions.data() + i * kActionScalars);
}

}  // namespace pacml::gpu
