#include "core/parallel/step_timeline.h"

#include <algorithm>
#include <utility>

namespace pacml {
namespace {

using Interval = std::pair<double, double>;

// Total length of the union of intervals.
double union_length(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end());
  double total = 0, start = 0, end = -1;
  for (const auto& [a, b] : intervals) {
    if (a > end) {
      total += std::max(0.0, end - start);
      start = a, end = b;
    } else {
      end = std::max(end, b);
    }
  }
  return total + std::max(0.0, end - start);
}

}  // namespace

TimelineResult run_timeline(const std::vector<TimelineOp>& ops,
                            const std::vector<TimelineCollective>& collectives, double host_start,
                            double overlap_slowdown) {
  std::vector<double> op_end(ops.size(), 0), collective_end(collectives.size(), 0);
  std::vector<Interval> compute, comm;
  double host = host_start, device = 0;
  size_t next_collective = 0;
  double comm_free = 0;  // the communication stream is free from this time
  TimelineResult r;
  // Collectives that became ready with op `i` (-1: the step's start) start in order.
  auto start_ready_collectives = [&](int i) {
    while (next_collective < collectives.size() && collectives[next_collective].after_op <= i) {
      const TimelineCollective& c = collectives[next_collective];
      const double ready = c.after_op < 0 ? host_start : op_end[c.after_op];
      const double begin = std::max(comm_free, ready);
      comm_free = begin + c.time;
      collective_end[next_collective++] = comm_free;
      comm.emplace_back(begin, comm_free);
      r.comm += c.time;
    }
  };
  start_ready_collectives(-1);
  for (size_t i = 0; i < ops.size(); ++i) {
    host += ops[i].host;
    double start = std::max(host, device);
    if (ops[i].waits_for >= 0) start = std::max(start, collective_end[ops[i].waits_for]);
    double length = ops[i].device;
    // Collectives already running slow a compute op that overlaps them.
    if (!ops[i].is_collective && comm_free > start)
      length += std::min(comm_free - start, length) * overlap_slowdown;
    device = start + length;
    op_end[i] = device;
    (ops[i].is_collective ? comm : compute).emplace_back(start, device);
    if (ops[i].is_collective)
      r.comm += length;
    else
      r.compute += ops[i].device;
    start_ready_collectives(static_cast<int>(i));
  }
  r.end = std::max(device, comm_free);
  const double busy_compute = union_length(compute), busy_comm = union_length(comm);
  std::vector<Interval> all = compute;
  all.insert(all.end(), comm.begin(), comm.end());
  r.overlap = std::max(0.0, busy_compute + busy_comm - union_length(std::move(all)));
  return r;
}

}  // namespace pacml
