#include "core/placement/first_fit.h"

#include <algorithm>
#include <deque>

#include "core/placement/block_shapes.h"

namespace pacml {

std::vector<int> kahn_order(const LayerGraph& graph) {
  const int n = graph.num_layers();
  std::vector<std::vector<int>> children(n);
  std::vector<int> indegree(n, 0);
  for (const LayerEdge& e : graph.edges) children[e.src].push_back(e.dst), ++indegree[e.dst];
  std::deque<int> queue;
  for (int v = 0; v < n; ++v)
    if (indegree[v] == 0) queue.push_back(v);
  std::vector<int> order;
  order.reserve(n);
  while (!queue.empty()) {
    int v = queue.front();
    queue.pop_front();
    order.push_back(v);
    for (int child : children[v])
      if (--indegree[child] == 0) queue.push_back(child);
  }
  return order;
}

namespace {

// Placement state of one job: free memory of each server it may use.
class FirstFit {
 public:
  FirstFit(const PartitionedGraph& graph, const ClusterState& cluster)
      : graph_(graph),
        cluster_(cluster),
        topology_(cluster.topology()),
        free_memory_(cluster.num_servers(), topology_.params().worker_memory),
        layer_servers_(graph.step().num_layers()) {
    result_.server_of.assign(graph.num_ops(), -1);
  }

  Placement run() {
    const LayerGraph& layers = graph_.step().layers();
    std::vector<std::vector<int>> parents(layers.num_layers());
    for (const LayerEdge& e : layers.edges) parents[e.dst].push_back(e.src);
    for (int v : kahn_order(layers)) {
      if (!place_on_parent(v, parents[v]) && !place_on_block(v)) {
        result_.failure = "no free block of servers for layer '" + layers.layers[v].name +
                          "' split " + std::to_string(graph_.splits()[v]) + " ways";
        return result_;
      }
    }
    for (int server : result_.server_of) result_.servers.push_back(server);
    std::sort(result_.servers.begin(), result_.servers.end());
    result_.servers.erase(std::unique(result_.servers.begin(), result_.servers.end()),
                          result_.servers.end());
    result_.placed = true;
    return result_;
  }

 private:
  // Memory that layer v's forward and backward sub-ops occupy together. doc/MODEL.md
  // §4: the reference compares the forward op's memory; pacml checks all it places so that a
  // server never goes over. With the paper's graphs memory never binds.
  double need(int v) const {
    const StepGraph& step = graph_.step();
    return step.ops()[step.forward_op(v)].memory + step.ops()[step.backward_op(v)].memory;
  }

  bool place_on_parent(int v, const std::vector<int>& parents) {
    const int s = graph_.splits()[v];
    for (int p : parents) {
      const std::vector<int>& servers = layer_servers_[p];
      if (static_cast<int>(servers.size()) != s) continue;
      double room = 0;
      for (int server : servers) room += free_memory_[server];
      if (room >= need(v)) {
        assign(v, servers);
        return true;
      }
    }
    return false;
  }

  bool place_on_block(int v) {
    const int s = graph_.splits()[v];
    if (s > cluster_.num_servers()) return false;
    const double per_server = need(v) / s;
    std::vector<int> buffer;
    for (const BlockShape& shape : candidate_shapes(s, topology_)) {
      bool found = for_each_block(shape, s, topology_, buffer, [&](const std::vector<int>& block) {
        for (int server : block)
          if (!usable(server) || free_memory_[server] < per_server) return false;
        assign(v, block);
        return true;
      });
      if (found) return true;
    }
    return false;
  }

  // A server is usable if no other job holds it (this job's own servers are fine).
  bool usable(int server) const { return cluster_.is_free(server); }

  void assign(int v, const std::vector<int>& servers) {
    const StepGraph& step = graph_.step();
    layer_servers_[v] = servers;
    for (int x : {step.forward_op(v), step.backward_op(v)}) {
      const int first = graph_.first_sub_op(x);
      for (int part = 0; part < graph_.parts(x); ++part) {
        result_.server_of[first + part] = servers[part];
        result_.order.push_back(first + part);
        free_memory_[servers[part]] -= graph_.op(first + part).memory;
      }
    }
  }

  const PartitionedGraph& graph_;
  const ClusterState& cluster_;
  const RampTopology& topology_;
  std::vector<double> free_memory_;
  std::vector<std::vector<int>> layer_servers_;  // servers of each placed layer, by part
  Placement result_;
};

}  // namespace

Placement place_first_fit(const PartitionedGraph& graph, const ClusterState& cluster) {
  return FirstFit(graph, cluster).run();
}

}  // namespace pacml
