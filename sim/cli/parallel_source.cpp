#include "sim/cli/parallel_source.h"

#include "core/graph/graph_files.h"
#include "core/util/error.h"
#include "sim/cli/graph_source.h"

namespace pacml::cli {

void add_cluster_options(Args& args) {
  args.option("cluster", "FILE|NAME",
              "cluster description (contrib/clusters/*.yaml) or preset name: paper-4x4x2, "
              "dgx-a100-4x8, dgx-a100-16x8, ramp-a100-16x8, dgx2-v100, dgx-h100-4x8, dgx-h200-4x8, "
              "dgx-b200-4x8");
  args.option("throughput-table", "DIR",
              "measured iterations/s per model (ElasticFlow's MODEL.csv format); overrides the "
              "analytic step time where it has the point");
  args.option("profiled-batch", "B",
              "graph files: the batch the profile was measured at (default 64; the job runs at "
              "--batch, default the same)");
}

ClusterChoice cluster_choice(const Args& args) {
  ClusterChoice choice;
  choice.cluster = args.maybe("cluster");
  choice.throughput_table = args.maybe("throughput-table");
  return choice;
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

TrainingOptions training_options(const Args& args) {
  TrainingOptions training;
  training.activation_checkpointing = args.is_set("activation-checkpointing");
  if (args.has("optimizer")) training.optimizer = parse_optimizer(args.get("optimizer"));
  return training;
}

ParallelJobPtr load_parallel_job(const Args& args, const ClusterSpec& cluster) {
  if (args.has("model")) {
    if (args.has("graph")) throw InputError("--model", "give either --graph or --model, not both");
    if (args.has("profiled-batch"))
      throw InputError("--profiled-batch",
                       "applies to graph files; zoo models are costed at "
                       "every batch");
    ZooOptions options = zoo_options(args);
    options.device = cluster.device;  // the job runs on the cluster's GPUs
    return ParallelJob::from_zoo(args.get("model"), options, training_options(args));
  }
  if (!args.has("graph")) throw InputError("pacml", "give a graph: --graph FILE or --model NAME");
  reject_zoo_options(args, /*batch_applies=*/true);  // --batch: the batch the job runs at
  constexpr long kMaxBatch = 1 << 20;
  const int profiled = args.has("profiled-batch")
                           ? static_cast<int>(args.get_long("profiled-batch", 1, kMaxBatch))
                           : kDefaultProfiledBatch;
  const int batch = args.has("batch") ? static_cast<int>(args.get_long("batch", 1, kMaxBatch)) : 0;
  return ParallelJob::from_graph(load_graph_file(args.get("graph")), profiled, batch,
                                 ModelFamily::kOther, training_options(args));
}

}  // namespace pacml::cli
