// What the physical-model commands (estimate, calibrate, replay) read from the
// command line: the cluster (--cluster FILE|PRESET, or --topology CxRxS for
// the paper's), a measured throughput table, and the job as a ParallelJob.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/parallel/parallel_job.h"
#include "core/parallel/physical_estimator.h"
#include "core/util/args.h"
#include "sim/cli/graph_source.h"

namespace pacml::cli {

// What a command's options say about the cluster, each set only where the
// command declares that option and it was given (a command reads its own
// options; this struct is what it hands on).
struct ClusterChoice {
  std::optional<std::string> cluster;           // --cluster FILE|PRESET
  std::optional<std::string> topology;          // --topology CxRxS: the paper's RAMP cluster
  std::optional<std::string> device;            // --device: replaces its GPU, memory included
  std::optional<std::string> throughput_table;  // --throughput-table DIR
};

// --cluster and --throughput-table, bound to `choice`.
void add_cluster_options(Args& args, ClusterChoice& choice);

// A job's options beyond its graph: how it trains, and the batch a graph
// file's profile was measured at.
struct JobOptions {
  TrainingOptions training;           // --activation-checkpointing, --optimizer
  std::optional<int> profiled_batch;  // --profiled-batch B (graph files)
};

// --profiled-batch, bound to `job` (the estimate command binds the training options).
void add_profiled_batch_option(Args& args, JobOptions& job);

// The cluster chosen; default: the paper's 4x4x2.
ClusterSpec load_cluster_choice(const ClusterChoice& choice);

// The estimator over that cluster, with the throughput table if given.
PhysicalEstimator load_physical_estimator(const ClusterChoice& choice);

// The job: --model NAME with the zoo options (--batch = global batch), costed
// on `cluster`'s GPU, or a graph file measured at --profiled-batch samples and
// run at --batch.
ParallelJobPtr load_parallel_job(const GraphOptions& graph, const JobOptions& job,
                                 const ClusterSpec& cluster);

}  // namespace pacml::cli
