#include "sim/cli/parallel_source.h"

#include "core/graph/graph_files.h"
#include "core/util/error.h"

namespace pacml::cli {

void add_cluster_options(Args& args, ClusterChoice& choice) {
  args.bind("cluster", "FILE|NAME",
            "cluster description (contrib/clusters/*.yaml) or preset name: paper-4x4x2, "
            "dgx-a100-4x8, dgx-a100-16x8, ramp-a100-16x8, dgx2-v100, dgx-h100-4x8, dgx-h200-4x8, "
            "dgx-b200-4x8",
            choice.cluster);
  args.bind("throughput-table", "DIR",
            "measured iterations/s per model (ElasticFlow's MODEL.csv format); overrides the "
            "analytic step time where it has the point",
            choice.throughput_table);
}

void add_profiled_batch_option(Args& args, JobOptions& job) {
  args.bind("profiled-batch", "B",
            "graph files: the batch the profile was measured at (default 64; the job runs at "
            "--batch, default the same)",
            job.profiled_batch, 1, 1 << 20);
}

ClusterSpec load_cluster_choice(const ClusterChoice& choice) {
  if (choice.cluster && choice.topology)
    throw InputError("--cluster", "give either --cluster or --topology, not both");
  ClusterSpec cluster = choice.cluster ? load_cluster(*choice.cluster, "--cluster")
                                       : ClusterSpec::paper(RampTopology::parse(
                                             choice.topology.value_or("4x4x2"), "--topology"));
  // --device puts that GPU in every server: its speed, its memory and its
  // host's cost, so the job's op times and the plan's memory verdict agree.
  if (choice.device) {
    cluster.device = load_device(*choice.device, "--device");
    cluster.gpu_memory = cluster.device.memory_bytes;
  }
  return cluster;
}

PhysicalEstimator load_physical_estimator(const ClusterChoice& choice) {
  std::shared_ptr<const ThroughputTable> table;
  if (choice.throughput_table)
    table = std::make_shared<const ThroughputTable>(
        ThroughputTable::load_dir(*choice.throughput_table));
  return PhysicalEstimator(load_cluster_choice(choice), PhysicalConstants::calibrated(), table);
}

ParallelJobPtr load_parallel_job(const GraphOptions& graph, const JobOptions& job,
                                 const ClusterSpec& cluster) {
  if (graph.model) {
    if (job.profiled_batch)
      throw InputError("--profiled-batch",
                       "applies to graph files; zoo models are costed at "
                       "every batch");
    ZooOptions options = zoo_options(graph);
    options.device = cluster.device;  // the job runs on the cluster's GPUs
    return ParallelJob::from_zoo(*graph.model, options, job.training);
  }
  if (!graph.graph) throw InputError("pacml", "give a graph: --graph FILE or --model NAME");
  reject_zoo_options(graph, /*batch_applies=*/true);  // --batch: the batch the job runs at
  return ParallelJob::from_graph(load_graph_file(*graph.graph),
                                 job.profiled_batch.value_or(kDefaultProfiledBatch),
                                 graph.zoo.batch.value_or(0), ModelFamily::kOther, job.training);
}

}  // namespace pacml::cli
