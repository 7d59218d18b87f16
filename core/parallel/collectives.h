// Collective and point-to-point times on a cluster (doc/PHYSICAL.md §4), as
// NCCL runs them: rings inside a server over NVLink, rings across servers
// over the network, hierarchical when a group spans servers with several
// GPUs each (reduce-scatter inside, all-reduce across, all-gather inside).
// Every call pays a fixed overhead and a latency per ring step; the data
// moves at the links' bandwidth times NCCL's bus efficiency.
#pragma once

#include "core/cluster/cluster_spec.h"
#include "core/parallel/physical_constants.h"

namespace pacml {

// Where a group of GPUs sits: `servers` servers with up to `per_server` GPUs
// each. An uneven group is paced by its fullest server.
struct GpuGroup {
  int gpus = 1;
  int servers = 1;
  int per_server = 1;
};

// k GPUs on as few servers of G GPUs as possible.
GpuGroup pack_gpus(int gpus, int gpus_per_server);

class CollectiveModel {
 public:
  CollectiveModel(const ClusterSpec& cluster, const PhysicalConstants& constants);

  // Every rank ends with the sum of its `bytes`.
  double all_reduce(double bytes, const GpuGroup& group) const;
  // Every rank ends with all `bytes` (each contributed bytes / gpus): one
  // ring pass, each GPU moving (g-1)/g of the data.
  double all_gather(double bytes, const GpuGroup& group) const;
  // Every rank ends with its 1/gpus of the sum of everyone's `bytes`: the
  // same ring pass as an all-gather, in the other direction.
  double reduce_scatter(double bytes, const GpuGroup& group) const;
  // One transfer between two GPUs, inside a server or across the network.
  double send(double bytes, bool across_servers) const;

 private:
  double intra_ring(double bytes, int ranks) const;  // one reduce-scatter pass
  double inter_ring(double bytes, int servers) const;

  ClusterSpec cluster_;
  PhysicalConstants constants_;
};

}  // namespace pacml
