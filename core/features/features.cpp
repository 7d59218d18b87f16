#include "core/features/features.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <set>

#include "core/partition/split_counts.h"
#include "core/placement/action_mask.h"
#include "core/util/error.h"

namespace pacml::features {
namespace {

double mean_of(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

// numpy-style median (mean of the two middle values for an even count).
double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double ratio(double v, double max) {
  return max > 0 ? v / max : 0.0;
}

}  // namespace

const std::vector<std::string>& node_feature_names() {
  static const std::vector<std::string> names = {"compute", "is_max_compute", "memory",
                                                 "is_max_memory", "depth"};
  return names;
}

const std::vector<std::string>& edge_feature_names() {
  static const std::vector<std::string> names = {"size", "is_max_size"};
  return names;
}

const std::vector<std::string>& graph_feature_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {
        "num_ops",       "num_edges",      "jct_seq",          "jct_max",
        "beta",          "beta_raw",       "total_op_memory",  "total_edge_size",
        "steps",         "compute_mean",   "compute_median",   "memory_mean",
        "memory_median", "edge_size_mean", "edge_size_median", "occupied_servers",
        "running_jobs"};
    for (const char* what : {"room_after_", "free_after_", "feasible_"})
      for (int a = 0; a < kNumActions; ++a) n.push_back(what + std::to_string(a));
    return n;
  }();
  return names;
}

nlohmann::json schema_json() {
  return {{"version", kSchemaVersion},
          {"node", node_feature_names()},
          {"edge", edge_feature_names()},
          {"graph", graph_feature_names()}};
}

double unpartitioned_edge_size(const StepGraph& step, const StepDep& dep, EdgeSizeRule rule) {
  if (rule == EdgeSizeRule::kReference) return step.ops()[dep.src].memory;
  return step.layers().layers[dep.carried_layer].activation_bytes;
}

namespace {

// Each op's depth (1 at the first source; 0 where the BFS from it does not
// reach) and the greatest.
struct OpDepths {
  std::vector<int> depth;
  int max = 0;
};

OpDepths bfs_depths(const StepGraph& step) {
  const int n = step.num_ops();
  std::vector<std::vector<int>> out(n);
  std::vector<int> indegree(n, 0);
  for (const StepDep& d : step.deps()) {
    out[d.src].push_back(d.dst);
    ++indegree[d.dst];
  }
  OpDepths depths{std::vector<int>(n, 0)};
  int first_source = -1;
  for (int i = 0; i < n && first_source < 0; ++i)
    if (indegree[i] == 0) first_source = i;
  if (first_source < 0) return depths;
  std::deque<int> queue{first_source};
  depths.depth[first_source] = 1;
  while (!queue.empty()) {
    const int u = queue.front();
    queue.pop_front();
    depths.max = std::max(depths.max, depths.depth[u]);
    for (int v : out[u])
      if (depths.depth[v] == 0) {
        depths.depth[v] = depths.depth[u] + 1;
        queue.push_back(v);
      }
  }
  return depths;
}

// f.node, f.total_op_memory and the compute and memory statistics.
void add_node_features(const StepGraph& step, JobFeatures& f) {
  const int n = f.num_nodes;
  double max_compute = 0, max_memory = 0;
  for (const StepOp& op : step.ops()) {
    max_compute = std::max(max_compute, op.compute);
    max_memory = std::max(max_memory, op.memory);
    f.total_op_memory += op.memory;
  }
  const OpDepths depths = bfs_depths(step);
  f.node.resize(static_cast<size_t>(n) * kNodeFeatures);
  std::vector<double> compute_f(n), memory_f(n);
  for (int i = 0; i < n; ++i) {
    const StepOp& op = step.ops()[i];
    compute_f[i] = ratio(op.compute, max_compute);
    memory_f[i] = ratio(op.memory, max_memory);
    float* row = &f.node[static_cast<size_t>(i) * kNodeFeatures];
    row[0] = static_cast<float>(compute_f[i]);
    row[1] = max_compute > 0 && op.compute == max_compute ? 1.f : 0.f;
    row[2] = static_cast<float>(memory_f[i]);
    row[3] = max_memory > 0 && op.memory == max_memory ? 1.f : 0.f;
    row[4] = static_cast<float>(ratio(depths.depth[i], depths.max));
  }
  f.compute_mean = mean_of(compute_f);
  f.compute_median = median_of(compute_f);
  f.memory_mean = mean_of(memory_f);
  f.memory_median = median_of(memory_f);
}

// f.src, f.dst, f.edge, f.total_edge_size and the edge size statistics.
void add_edge_features(const StepGraph& step, EdgeSizeRule rule, JobFeatures& f) {
  std::vector<double> sizes(f.num_edges);
  double max_size = 0;
  for (int k = 0; k < f.num_edges; ++k) {
    sizes[k] = unpartitioned_edge_size(step, step.deps()[k], rule);
    max_size = std::max(max_size, sizes[k]);
    f.total_edge_size += sizes[k];
  }
  f.src.resize(f.num_edges);
  f.dst.resize(f.num_edges);
  f.edge.resize(static_cast<size_t>(f.num_edges) * kEdgeFeatures);
  std::vector<double> size_f(f.num_edges);
  for (int k = 0; k < f.num_edges; ++k) {
    f.src[k] = step.deps()[k].src;
    f.dst[k] = step.deps()[k].dst;
    size_f[k] = ratio(sizes[k], max_size);
    f.edge[2 * k] = static_cast<float>(size_f[k]);
    f.edge[2 * k + 1] = max_size > 0 && sizes[k] == max_size ? 1.f : 0.f;
  }
  f.edge_mean = mean_of(size_f);
  f.edge_median = median_of(size_f);
}

}  // namespace

JobFeatures extract_job_features(const JobGraph& job, EdgeSizeRule rule) {
  const StepGraph& step = job.step();
  JobFeatures f;
  f.num_nodes = step.num_ops();
  f.num_edges = step.num_deps();
  add_node_features(step, f);
  add_edge_features(step, rule, f);
  return f;
}

double Range::normalise(double v) const {
  if (!(max > min)) return 0.0;
  return std::clamp((v - min) / (max - min), 0.0, 1.0);
}

void Range::include(double v) {
  min = std::min(min, v);
  max = std::max(max, v);
}

namespace {

const char* const kRangeNames[] = {"num_ops", "num_edges",       "jct_seq",         "jct_max",
                                   "beta",    "total_op_memory", "total_edge_size", "steps"};

template <typename N, typename F>
void for_each_range(N& norm, F fn) {
  fn(kRangeNames[0], norm.ops);
  fn(kRangeNames[1], norm.edges);
  fn(kRangeNames[2], norm.jct_seq);
  fn(kRangeNames[3], norm.jct_max);
  fn(kRangeNames[4], norm.beta);
  fn(kRangeNames[5], norm.op_memory);
  fn(kRangeNames[6], norm.edge_size);
  fn(kRangeNames[7], norm.steps);
}

}  // namespace

nlohmann::json Normalisers::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for_each_range(*this, [&](const char* name, const Range& r) { j[name] = {r.min, r.max}; });
  return j;
}

Normalisers Normalisers::from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where, "normalisers: expected an object");
  Normalisers n;
  for_each_range(n, [&](const char* name, Range& r) {
    const auto it = j.find(name);
    if (it == j.end() || !it->is_array() || it->size() != 2 || !(*it)[0].is_number() ||
        !(*it)[1].is_number())
      throw InputError(where, std::string("normalisers: '") + name + "' must be [min, max]");
    r.min = (*it)[0].get<double>();
    r.max = (*it)[1].get<double>();
    if (!std::isfinite(r.min) || !std::isfinite(r.max) || r.max < r.min)
      throw InputError(where, std::string("normalisers: '") + name + "' is not a finite range");
  });
  return n;
}

bool Normalisers::operator==(const Normalisers& o) const {
  return to_json() == o.to_json();
}

Normalisers compute_normalisers(const std::vector<JobGraphPtr>& graphs,
                                const JctEstimator& estimator, double beta_min, double beta_max) {
  if (graphs.empty()) throw InputError("normalisers", "the job population has no graphs");
  Normalisers n;
  bool first = true;
  const EdgeSizeRule rule = estimator.profile().edge_sizes;
  for (const JobGraphPtr& g : graphs) {
    const StepGraph& step = g->step();
    double edge_total = 0;
    for (const StepDep& d : step.deps()) edge_total += unpartitioned_edge_size(step, d, rule);
    const double jct = estimator.sequential_jct(*g);
    const double values[] = {static_cast<double>(step.num_ops()),
                             static_cast<double>(step.num_deps()), jct, step.total_op_memory(),
                             edge_total};
    Range* ranges[] = {&n.ops, &n.edges, &n.jct_seq, &n.op_memory, &n.edge_size};
    for (int i = 0; i < 5; ++i) {
      if (first) ranges[i]->min = ranges[i]->max = values[i];
      ranges[i]->include(values[i]);
    }
    first = false;
  }
  n.jct_max = {beta_min * n.jct_seq.min, beta_max * n.jct_seq.max};
  n.beta = {beta_min, beta_max};
  n.steps = {static_cast<double>(estimator.steps()), static_cast<double>(estimator.steps())};
  return n;
}

ClusterLoad cluster_load(const ClusterState& cluster) {
  ClusterLoad load;
  load.servers = cluster.num_servers();
  load.occupied = cluster.occupied_servers();
  std::set<JobId> owners;
  for (int s = 0; s < load.servers; ++s)
    if (!cluster.is_free(s)) owners.insert(cluster.owner(s));
  load.running = static_cast<int>(owners.size());
  return load;
}

namespace {

// Owner of the servers of the hypothetical job in an outlook's what-if copy.
constexpr JobId kOutlookJob = std::numeric_limits<JobId>::max();

// The largest action (/ the largest one) whose block shape has a free block on `cluster`.
float room_of(const ClusterState& cluster) {
  const std::vector<bool> mask = action_mask(cluster, kNumActions - 1);
  int largest = 0;
  for (int a = 1; a < static_cast<int>(mask.size()); ++a)
    if (mask[a]) largest = a;
  return static_cast<float>(largest) / (kNumActions - 1);
}

}  // namespace

ActionOutlook action_outlook(const JobGraph& job, double beta, const ClusterState& cluster,
                             const std::vector<bool>& mask, const JctEstimator& estimator,
                             LookaheadCache* cache) {
  ActionOutlook o;
  const float servers = static_cast<float>(std::max(1, cluster.num_servers()));
  o.feasible[0] = true;
  o.room_after[0] = room_of(cluster);
  o.free_after[0] = static_cast<float>(cluster.free_servers()) / servers;
  for (int a = 1; a < kNumActions && a < static_cast<int>(mask.size()); ++a) {
    if (!mask[a] || !is_valid_action(a)) continue;
    const Estimate e = estimator.estimate(job, a, beta, cluster, cache);
    if (!e.accepted()) continue;
    o.feasible[a] = true;
    ClusterState after = cluster;
    after.occupy(kOutlookJob, e.placement.servers);
    o.room_after[a] = room_of(after);
    o.free_after[a] = static_cast<float>(after.free_servers()) / servers;
  }
  return o;
}

std::vector<bool> feasible_actions(const JobGraph& job, double beta, const ClusterState& cluster,
                                   const std::vector<bool>& mask, const JctEstimator& estimator,
                                   LookaheadCache* cache) {
  return action_outlook(job, beta, cluster, mask, estimator, cache).feasible;
}

GraphInputs graph_inputs(const JobFeatures& job, const JobGraph& graph, const Normalisers& norm,
                         double sequential_jct, double beta, int steps, const ClusterLoad& load,
                         const ActionOutlook& outlook) {
  const StepGraph& step = graph.step();
  const double servers = load.servers > 0 ? load.servers : 1;
  const double values[kGraphStats] = {
      norm.ops.normalise(step.num_ops()),
      norm.edges.normalise(step.num_deps()),
      norm.jct_seq.normalise(sequential_jct),
      norm.jct_max.normalise(beta * sequential_jct),
      norm.beta.normalise(beta),
      std::clamp(beta, 0.0, 1.0),
      norm.op_memory.normalise(job.total_op_memory),
      norm.edge_size.normalise(job.total_edge_size),
      norm.steps.normalise(steps),
      job.compute_mean,
      job.compute_median,
      job.memory_mean,
      job.memory_median,
      job.edge_mean,
      job.edge_median,
      std::clamp(load.occupied / servers, 0.0, 1.0),
      std::clamp(load.running / servers, 0.0, 1.0),
  };
  GraphInputs in{};
  for (int i = 0; i < kGraphStats; ++i) in[i] = static_cast<float>(values[i]);
  for (int a = 0; a < kNumActions; ++a) {
    const bool feasible = a < static_cast<int>(outlook.feasible.size()) && outlook.feasible[a];
    in[kRoomAfterOffset + a] = feasible ? std::clamp(outlook.room_after[a], 0.f, 1.f) : 0.f;
    in[kFreeAfterOffset + a] = feasible ? std::clamp(outlook.free_after[a], 0.f, 1.f) : 0.f;
    in[kFeasibleOffset + a] = feasible ? 1.f : 0.f;
  }
  return in;
}

}  // namespace pacml::features
