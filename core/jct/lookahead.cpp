#include "core/jct/lookahead.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

namespace pacml {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Tolerance for "finished now": remaining times and finish instants are
// computed by different sums, so they may differ in the last bits.
double tolerance(double now) {
  return 1e-12 * std::max(1.0, std::abs(now));
}

// A binary max-heap of ids ordered by a priority table.
class PriorityHeap {
 public:
  void push(int id, const std::vector<int>& priority) {
    ids_.push_back(id);
    std::push_heap(ids_.begin(), ids_.end(), Less{&priority});
  }
  void pop(const std::vector<int>& priority) {
    std::pop_heap(ids_.begin(), ids_.end(), Less{&priority});
    ids_.pop_back();
  }
  bool empty() const { return ids_.empty(); }
  int top() const { return ids_.front(); }

 private:
  struct Less {
    const std::vector<int>* priority;
    bool operator()(int a, int b) const { return (*priority)[a] < (*priority)[b]; }
  };
  std::vector<int> ids_;
};

// Ranks ids by initial time, descending, stable in `order`: the smallest time
// gets the highest rank, i.e. the highest priority (SRPT).
void rank_by_time(const std::vector<int>& order, const std::vector<double>& time,
                  std::vector<int>& rank) {
  std::vector<int> sorted(order);
  std::stable_sort(sorted.begin(), sorted.end(), [&](int a, int b) { return time[a] > time[b]; });
  for (int i = 0; i < static_cast<int>(sorted.size()); ++i) rank[sorted[i]] = i;
}

class StepSimulator {
 public:
  StepSimulator(const PartitionedGraph& graph, const Placement& placement,
                const std::vector<double>& dep_times, double compute_scale)
      : g_(graph), dep_time_(dep_times) {
    init_ops(placement, compute_scale);
    init_deps();
  }

  StepTiming run() {
    for (int op = 0; op < g_.num_ops(); ++op)
      if (needed_[op] == 0) make_ready(op);
    while (ops_done_ < g_.num_ops() || deps_done_ < g_.num_deps()) {
      const double t_op = next_op_finish();
      const double t_comm = std::max(0.0, next_flow_finish() - now_);
      const double tick = std::min(t_op, t_comm);
      if (tick == kInfinity)
        throw std::logic_error("lookahead stalled: the partitioned graph is not a DAG");
      account(tick);
      advance(tick);
    }
    timing_.step_time = now_;
    return timing_;
  }

 private:
  void init_ops(const Placement& placement, double compute_scale) {
    const int n = g_.num_ops();
    // Compact server ids to those the job uses.
    std::unordered_map<int, int> compact;
    server_.resize(n);
    for (int op = 0; op < n; ++op)
      server_[op] =
          compact.emplace(placement.server_of[op], static_cast<int>(compact.size())).first->second;
    heaps_.resize(compact.size());
    remaining_.resize(n);
    for (int op = 0; op < n; ++op) remaining_[op] = g_.op(op).compute * compute_scale;
    // Per-server SRPT ranks, stable over placement order.
    std::vector<std::vector<int>> on_server(compact.size());
    for (int op : placement.order) on_server[server_[op]].push_back(op);
    op_priority_.resize(n);
    for (const auto& ops : on_server) rank_by_time(ops, remaining_, op_priority_);
    needed_.assign(n, 0);
    arrived_.assign(n, 0);
    for (const SubDep& d : g_.deps())
      if (!d.sync()) ++needed_[d.dst];
    ready_.assign(n, 0);
    op_done_.assign(n, 0);
  }

  void init_deps() {
    const int m = g_.num_deps();
    std::vector<int> order(m);
    std::iota(order.begin(), order.end(), 0);
    dep_priority_.resize(m);
    rank_by_time(order, dep_time_, dep_priority_);
    // Each ordered server pair that carries a flow is one channel.
    std::unordered_map<long, int> channel_ids;
    channel_.assign(m, -1);
    const long servers = static_cast<long>(heaps_.size());
    for (int d = 0; d < m; ++d) {
      if (dep_time_[d] <= 0) continue;
      const long key = server_[g_.dep(d).src] * servers + server_[g_.dep(d).dst];
      channel_[d] = channel_ids.emplace(key, static_cast<int>(channel_ids.size())).first->second;
    }
    channels_.resize(channel_ids.size());
    finish_.assign(m, 0);
    dep_done_.assign(m, 0);
  }

  void make_ready(int op) {
    ready_[op] = 1;
    heaps_[server_[op]].push(op, op_priority_);
  }

  // The op a server runs now: its highest-priority ready op, or -1.
  int server_top(int server) {
    PriorityHeap& heap = heaps_[server];
    while (!heap.empty() && op_done_[heap.top()]) heap.pop(op_priority_);
    return heap.empty() ? -1 : heap.top();
  }

  double next_op_finish() {
    double t = kInfinity;
    picked_.clear();
    for (int server = 0; server < static_cast<int>(heaps_.size()); ++server) {
      const int op = server_top(server);
      if (op < 0) continue;
      picked_.push_back(op);
      t = std::min(t, remaining_[op]);
    }
    return t;
  }

  // Finish instant of the earliest-finishing highest-priority flow of any channel.
  double next_flow_finish() {
    while (!tops_.empty()) {
      const TopEntry& top = tops_.front();
      if (!dep_done_[top.dep] && channel_top(top.channel) == top.dep) return top.finish;
      std::pop_heap(tops_.begin(), tops_.end());
      tops_.pop_back();
    }
    return kInfinity;
  }

  int channel_top(int channel) {
    PriorityHeap& heap = channels_[channel];
    while (!heap.empty() && dep_done_[heap.top()]) heap.pop(dep_priority_);
    return heap.empty() ? -1 : heap.top();
  }

  void refresh_channel_top(int channel) {
    const int top = channel_top(channel);
    if (top < 0) return;
    tops_.push_back({finish_[top], channel, top});
    std::push_heap(tops_.begin(), tops_.end());
  }

  void account(double tick) {
    const bool computing = !picked_.empty();
    const bool communicating = active_flows_ > 0;
    if (computing && communicating)
      timing_.overlap += tick;
    else if (computing)
      timing_.comp_only += tick;
    else if (communicating)
      timing_.comm_only += tick;
    ++timing_.ticks;
  }

  void advance(double tick) {
    // picked_ was filled by next_op_finish() before anything completes: ops
    // made ready by this tick's completions must not be advanced by it.
    now_ += tick;
    const double eps = tolerance(now_);
    for (int op : picked_) {
      remaining_[op] -= tick;
      if (remaining_[op] <= eps) complete_op(op);
    }
    finished_channels_.clear();
    while (!finishing_.empty() && finishing_.front().first <= now_ + eps) {
      const int d = finishing_.front().second;
      std::pop_heap(finishing_.begin(), finishing_.end(), std::greater<>());
      finishing_.pop_back();
      --active_flows_;
      finished_channels_.push_back(channel_[d]);
      complete_dep(d);
    }
    for (int channel : finished_channels_) refresh_channel_top(channel);
  }

  void complete_op(int op) {
    remaining_[op] = 0;
    op_done_[op] = 1;  // leaves its server's heap lazily (server_top)
    ++ops_done_;
    for (int d : g_.out_deps(op)) start_dep(d);
  }

  void start_dep(int d) {
    if (dep_time_[d] <= 0) {
      complete_dep(d);  // same server or empty: done at once
      return;
    }
    finish_[d] = now_ + dep_time_[d];
    ++active_flows_;
    finishing_.push_back({finish_[d], d});
    std::push_heap(finishing_.begin(), finishing_.end(), std::greater<>());
    channels_[channel_[d]].push(d, dep_priority_);
    if (channel_top(channel_[d]) == d) refresh_channel_top(channel_[d]);
  }

  void complete_dep(int d) {
    dep_done_[d] = 1;
    ++deps_done_;
    const int op = g_.dep(d).dst;
    // Reference quirk: a completed sync edge counts toward readiness too.
    if (++arrived_[op] >= needed_[op] && !ready_[op]) make_ready(op);
  }

  struct TopEntry {
    double finish;
    int channel;
    int dep;
    // std heap functions build a max-heap; invert to keep the earliest on top.
    bool operator<(const TopEntry& o) const { return finish > o.finish; }
  };

  const PartitionedGraph& g_;
  const std::vector<double>& dep_time_;
  // ops
  std::vector<int> server_;
  std::vector<PriorityHeap> heaps_;  // ready ops per (compact) server
  std::vector<double> remaining_;
  std::vector<int> op_priority_, needed_, arrived_;
  std::vector<char> ready_, op_done_;
  std::vector<int> picked_;  // the op each busy server runs this tick
  // dependencies
  std::vector<int> dep_priority_, channel_;
  std::vector<double> finish_;
  std::vector<char> dep_done_;
  std::vector<PriorityHeap> channels_;             // active flows per channel
  std::vector<TopEntry> tops_;                     // channel tops by finish instant (lazy)
  std::vector<std::pair<double, int>> finishing_;  // every active flow by finish instant
  std::vector<int> finished_channels_;
  // progress
  double now_ = 0;
  int ops_done_ = 0, deps_done_ = 0, active_flows_ = 0;
  StepTiming timing_;
};

}  // namespace

StepTiming simulate_step(const PartitionedGraph& graph, const Placement& placement,
                         const std::vector<double>& dep_times, double compute_scale) {
  return StepSimulator(graph, placement, dep_times, compute_scale).run();
}

}  // namespace pacml
