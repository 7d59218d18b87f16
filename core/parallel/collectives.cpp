#include "core/parallel/collectives.h"

#include <algorithm>

namespace pacml {

GpuGroup pack_gpus(int gpus, int gpus_per_server) {
  GpuGroup group;
  group.gpus = std::max(1, gpus);
  group.servers = (group.gpus + gpus_per_server - 1) / gpus_per_server;
  group.per_server = (group.gpus + group.servers - 1) / group.servers;
  return group;
}

CollectiveModel::CollectiveModel(const ClusterSpec& cluster, const PhysicalConstants& constants)
    : cluster_(cluster), constants_(constants) {}

// One pass of a ring (reduce-scatter or all-gather) over `ranks` GPUs of one
// server: each moves (r-1)/r of the data over its NVLink port.
double CollectiveModel::intra_ring(double bytes, int ranks) const {
  if (ranks <= 1) return 0;
  const double bandwidth = cluster_.intra_server_bandwidth * constants_.bus_efficiency_intra;
  return (ranks - 1) * cluster_.intra_server_latency + bytes * (ranks - 1) / ranks / bandwidth;
}

// An all-reduce ring across servers: 2(n-1)/n of the data through each
// server's network port, which its GPUs' parallel rings share.
double CollectiveModel::inter_ring(double bytes, int servers) const {
  if (servers <= 1) return 0;
  const double bandwidth = cluster_.server_bandwidth * constants_.bus_efficiency_inter;
  return 2.0 * (servers - 1) * cluster_.network_latency +
         2.0 * bytes * (servers - 1) / servers / bandwidth;
}

double CollectiveModel::all_reduce(double bytes, const GpuGroup& group) const {
  if (group.gpus <= 1 || bytes <= 0) return 0;
  // Hierarchical: reduce-scatter inside each server, all-reduce of the
  // shards across servers (G rings in parallel share the port), all-gather.
  return constants_.collective_overhead + 2 * intra_ring(bytes, group.per_server) +
         inter_ring(bytes, group.servers);
}

double CollectiveModel::all_gather(double bytes, const GpuGroup& group) const {
  if (group.gpus <= 1 || bytes <= 0) return 0;
  return constants_.collective_overhead + intra_ring(bytes, group.per_server) +
         inter_ring(bytes, group.servers) / 2;
}

double CollectiveModel::reduce_scatter(double bytes, const GpuGroup& group) const {
  return all_gather(bytes, group);
}

double CollectiveModel::send(double bytes, bool across_servers) const {
  if (bytes <= 0) return 0;
  if (across_servers)
    return cluster_.network_latency +
           bytes / (cluster_.server_bandwidth / cluster_.gpus_per_server *
                    constants_.bus_efficiency_inter);
  return cluster_.intra_server_latency +
         bytes / (cluster_.intra_server_bandwidth * constants_.bus_efficiency_intra);
}

}  // namespace pacml
