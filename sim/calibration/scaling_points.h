// The measurements the physical model is calibrated and checked against
// (doc/PHYSICAL.md §7): ElasticFlow's A100 strong-scaling points, read from
// its traces, and published weak-scaling runs.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "core/zoo/model_zoo.h"
#include "sim/trace/trace.h"

namespace pacml::sim {

// The zoo configuration that stands for a model a trace names.
struct ZooStandIn {
  std::string trace_name;  // "bert"
  std::string zoo_model;   // "bert-base"
  int seq_len = 0;         // 0: the zoo's default
  Precision precision = Precision::kFp32;
  std::string why;  // how it was established
  // Every measurement here was taken with 2019-2021 PyTorch, whose
  // transformers ran eager attention (no fused SDPA before PyTorch 2.0).
  Attention attention = Attention::kEager;

  // The zoo options it stands for (sequence, precision, attention; the batch unset).
  ZooOptions options() const;
};

// ElasticFlow's six models; throws InputError for another name.
const std::vector<ZooStandIn>& elasticflow_stand_ins();
const ZooStandIn* find_stand_in(const std::string& trace_name);

struct ScalingPoint {
  std::string source;   // "elasticflow" or "published"
  std::string model;    // as the source names it
  ZooStandIn zoo;       // what pacml costs
  std::string cluster;  // the preset it was measured on
  int batch = 0;        // global batch at `gpus` GPUs
  int gpus = 1;
  int per_gpu_batch = 0;  // weak scaling: fixed per GPU (0: strong scaling)
  double measured_speedup = NAN;
  double measured_step_time = NAN;  // seconds, where known
  std::string reference;            // where a published figure comes from

  bool weak() const { return per_gpu_batch > 0; }
};

// Strong-scaling points from ElasticFlow trace records: per (model, batch,
// GPUs) the median of duration / iterations; the speed-up is against the
// same model and batch on one GPU (points without a one-GPU time are left
// out). Records of models that have no stand-in are ignored.
std::vector<ScalingPoint> elasticflow_points(const std::vector<TraceRecord>& records);

// The published weak-scaling runs of doc/PHYSICAL.md §7.
std::vector<ScalingPoint> published_points();

}  // namespace pacml::sim
