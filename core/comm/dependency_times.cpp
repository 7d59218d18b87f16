#include "core/comm/dependency_times.h"

#include <algorithm>

#include "core/comm/ramp_collective.h"

namespace pacml {
namespace {

class DependencyTimer {
 public:
  DependencyTimer(const PartitionedGraph& graph, const Placement& placement,
                  const RampTopology& topology)
      : g_(graph), server_of_(placement.server_of), t_(topology), times_(graph.num_deps(), 0.0) {}

  std::vector<double> run() {
    for (int d = 0; d < g_.num_deps(); ++d) times_[d] = one_to_one(d);
    const StepGraph& step = g_.step();
    for (int layer = 0; layer < step.num_layers(); ++layer) {
      if (g_.splits()[layer] < 2) continue;
      time_group(collect(step.forward_op(layer), /*outgoing=*/true));
      time_group(collect(step.backward_op(layer), /*outgoing=*/false));
    }
    time_sync_pairs();
    return times_;
  }

 private:
  bool local(int d) const {
    const SubDep& dep = g_.dep(d);
    return server_of_[dep.src] == server_of_[dep.dst] || dep.size == 0;
  }

  double one_to_one(int d) const { return local(d) ? 0 : one_to_one_time(g_.dep(d).size, t_); }

  // Out-deps of a forward op's sub-ops, or non-sync in-deps of a backward op's.
  std::vector<int> collect(int step_op, bool outgoing) const {
    std::vector<int> group;
    const int first = g_.first_sub_op(step_op);
    for (int part = 0; part < g_.parts(step_op); ++part) {
      for (int d : outgoing ? g_.out_deps(first + part) : g_.in_deps(first + part))
        if (!g_.dep(d).sync()) group.push_back(d);
    }
    return group;
  }

  void time_group(const std::vector<int>& group) {
    if (group.empty()) return;
    std::vector<int> sources, destinations;
    for (int d : group) {
      sources.push_back(server_of_[g_.dep(d).src]);
      destinations.push_back(server_of_[g_.dep(d).dst]);
    }
    std::sort(sources.begin(), sources.end());
    std::sort(destinations.begin(), destinations.end());
    if (sources != destinations) return;  // stays one-to-one
    const double time = collective_time(span(group), t_);
    for (int d : group) times_[d] = local(d) ? 0 : time;
  }

  void time_sync_pairs() {
    const StepGraph& step = g_.step();
    for (int layer = 0; layer < step.num_layers(); ++layer) {
      const int x = step.backward_op(layer);
      if (g_.parts(x) < 2) continue;
      const int first = g_.first_sub_op(x);
      for (int d : sync_deps(first, g_.parts(x))) {
        const SubDep& dep = g_.dep(d);
        if (dep.src > dep.dst) continue;  // handle each pair once, from its lower end
        const int back = find_reverse(d);
        const std::vector<int> pair = {d, back};
        const double time = collective_time(span(pair), t_);
        for (int e : pair) times_[e] = local(e) ? 0 : time;
      }
    }
  }

  std::vector<int> sync_deps(int first, int parts) const {
    std::vector<int> deps;
    for (int part = 0; part < parts; ++part)
      for (int d : g_.out_deps(first + part))
        if (g_.dep(d).sync()) deps.push_back(d);
    return deps;
  }

  int find_reverse(int d) const {
    const SubDep& dep = g_.dep(d);
    for (int e : g_.out_deps(dep.dst))
      if (g_.dep(e).sync() && g_.dep(e).dst == dep.src) return e;
    return d;  // unreachable for a well-formed clique
  }

  CollectiveSpan span(const std::vector<int>& group) const {
    std::vector<int> servers;
    CollectiveSpan s;
    for (int d : group) {
      servers.push_back(server_of_[g_.dep(d).src]);
      servers.push_back(server_of_[g_.dep(d).dst]);
      s.message_bytes += g_.dep(d).size;
    }
    std::sort(servers.begin(), servers.end());
    servers.erase(std::unique(servers.begin(), servers.end()), servers.end());
    std::vector<int> groups, racks, ids;
    for (int server : servers) {
      ServerCoord c = t_.coord(server);
      groups.push_back(c.c), racks.push_back(c.r), ids.push_back(c.s);
    }
    s.groups = count_distinct(groups);
    s.racks = count_distinct(racks);
    s.ids = count_distinct(ids);
    s.servers = static_cast<int>(servers.size());
    return s;
  }

  static int count_distinct(std::vector<int>& values) {
    std::sort(values.begin(), values.end());
    return static_cast<int>(std::unique(values.begin(), values.end()) - values.begin());
  }

  const PartitionedGraph& g_;
  const std::vector<int>& server_of_;
  const RampTopology& t_;
  std::vector<double> times_;
};

}  // namespace

std::vector<double> dependency_times(const PartitionedGraph& graph, const Placement& placement,
                                     const RampTopology& topology) {
  return DependencyTimer(graph, placement, topology).run();
}

}  // namespace pacml
