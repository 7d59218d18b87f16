// What the physical-model commands (estimate, calibrate, replay) read from the
// command line: the cluster (--cluster FILE|PRESET, or --topology CxRxS for
// the paper's), a measured throughput table, and the job as a ParallelJob.
#pragma once

#include <memory>

#include "core/parallel/parallel_job.h"
#include "core/parallel/physical_estimator.h"
#include "core/util/args.h"

namespace pacml::cli {

// --cluster, --throughput-table (and --profiled-batch for graph files).
void add_cluster_options(Args& args);

// The cluster the options name; --topology CxRxS (when declared and given)
// is the paper's RAMP cluster of that shape. Default: the paper's 4x4x2.
// --device (when declared and given) replaces its GPU, memory included.
ClusterSpec load_cluster_option(const Args& args);

// The estimator over that cluster, with the throughput table if given.
PhysicalEstimator load_physical_estimator(const Args& args);

// --activation-checkpointing and --optimizer (declared by the estimate command).
TrainingOptions training_options(const Args& args);

// The job: --model NAME with the zoo options (--batch = global batch), costed
// on `cluster`'s GPU, or a graph file measured at --profiled-batch samples and
// run at --batch.
ParallelJobPtr load_parallel_job(const Args& args, const ClusterSpec& cluster);

}  // namespace pacml::cli
