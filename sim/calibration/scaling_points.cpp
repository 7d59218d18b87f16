#include "sim/calibration/scaling_points.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/util/error.h"
#include "core/util/statistics.h"

namespace pacml::sim {

const std::vector<ZooStandIn>& elasticflow_stand_ins() {
  // Established from the traces' one-GPU times (doc/PHYSICAL.md §7.1).
  static const std::vector<ZooStandIn> stand_ins = {
      {"resnet50", "resnet50", 0, Precision::kFp32, "torchvision ResNet-50, ImageNet 224 px"},
      {"vgg16", "vgg16", 0, Precision::kFp32, "torchvision VGG-16, ImageNet 224 px"},
      {"inception3", "inception_v3", 0, Precision::kFp32,
       "torchvision Inception v3 without the auxiliary head, 299 px"},
      {"bert", "bert-base", 384, Precision::kFp16,
       "BERT-base, sequence 384 (SQuAD fine-tuning), mixed precision"},
      {"gpt2", "gpt2", 192, Precision::kFp16, "GPT-2 small, sequence 192, mixed precision"},
      {"deepspeech2", "deepspeech2", 450, Precision::kFp32,
       "DeepSpeech2, 4.5 s of audio (450 frames of 10 ms)"},
  };
  return stand_ins;
}

ZooOptions ZooStandIn::options() const {
  ZooOptions options;
  if (seq_len) options.seq_len = seq_len;
  options.precision = precision;
  options.attention = attention;
  return options;
}

const ZooStandIn* find_stand_in(const std::string& trace_name) {
  for (const ZooStandIn& s : elasticflow_stand_ins())
    if (s.trace_name == trace_name) return &s;
  return nullptr;
}

namespace {

ScalingPoint weak(const std::string& model, const std::string& zoo_model, int seq_len,
                  Precision precision, const std::string& cluster, int per_gpu, int gpus,
                  double speedup, const std::string& reference) {
  ScalingPoint p;
  p.source = "published";
  p.model = model;
  p.zoo = {model, zoo_model, seq_len, precision, ""};
  p.cluster = cluster;
  p.per_gpu_batch = per_gpu;
  p.gpus = gpus;
  p.batch = per_gpu * gpus;
  p.measured_speedup = speedup;
  p.reference = reference;
  return p;
}

}  // namespace

std::vector<ScalingPoint> elasticflow_points(const std::vector<TraceRecord>& records) {
  // (model, batch, gpus) -> seconds per iteration of each job.
  std::map<std::tuple<std::string, int, int>, std::vector<double>> times;
  for (const TraceRecord& r : records) {
    if (!find_stand_in(r.model) || r.batch < 1 || r.iterations < 1 || !(r.duration > 0)) continue;
    times[{r.model, r.batch, r.gpus}].push_back(r.duration / r.iterations);
  }
  std::vector<ScalingPoint> points;
  for (const auto& [key, values] : times) {
    const auto& [model, batch, gpus] = key;
    auto one = times.find({model, batch, 1});
    if (one == times.end()) continue;
    ScalingPoint p;
    p.source = "elasticflow";
    p.model = model;
    p.zoo = *find_stand_in(model);
    p.cluster = "dgx-a100-16x8";
    p.batch = batch;
    p.gpus = gpus;
    p.measured_step_time = median(values);
    p.measured_speedup = median(one->second) / p.measured_step_time;
    p.reference = "ElasticFlow trace: median duration / num_iteration";
    points.push_back(std::move(p));
  }
  return points;
}

std::vector<ScalingPoint> published_points() {
  const std::string nv = "NVIDIA Deep Learning Examples, published training performance";
  std::vector<ScalingPoint> points = {
      weak("resnet50", "resnet50", 0, Precision::kTf32, "dgx-a100-16x8", 256, 8, 7.72,
           nv + " (PyTorch, TF32)"),
      weak("bert-large", "bert-large", 384, Precision::kTf32, "dgx-a100-16x8", 32, 8, 7.63,
           nv + " (SQuAD fine-tuning, TF32)"),
      weak("gnmt", "gnmt", 0, Precision::kTf32, "dgx-a100-16x8", 128, 4, 3.35,
           nv + " (TF32, A100 40GB)"),
      weak("gnmt", "gnmt", 0, Precision::kTf32, "dgx-a100-16x8", 128, 8, 6.25,
           nv + " (TF32, A100 40GB)"),
  };
  for (auto [gpus, speedup] :
       {std::pair{2, 1.96}, std::pair{4, 3.92}, std::pair{8, 7.72}, std::pair{16, 15.19}})
    points.push_back(weak("resnet50", "resnet50", 0, Precision::kFp32, "dgx2-v100", 128, gpus,
                          speedup, nv + " (DGX-2, FP32)"));
  return points;
}

}  // namespace pacml::sim
