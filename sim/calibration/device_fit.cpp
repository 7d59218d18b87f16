#include "sim/calibration/device_fit.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "core/cluster/cluster_spec.h"
#include "core/parallel/physical_estimator.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/zoo/attention.h"

namespace pacml::sim {
namespace {

// The coordinate search: the first step multiplies a constant by 2, each
// round without an improvement halves the step, and it stops below a 0.1 %
// change or after kMaxEvaluations predictions of the whole probe (a probe
// has about 30 steps; the search needs a few hundred).
constexpr double kFirstStep = 0.6931471805599453;  // log(2)
constexpr double kLastStep = 1e-3;
constexpr int kMaxEvaluations = 3000;

// The goal's memory tolerance (issue 29; doc/PHYSICAL.md §10).
constexpr double kMemoryTolerance = 0.25;

// A GPU whose matrix products reach more than this fraction of the peak an
// efficiency implies is not believable; the fit keeps peaks physical.
constexpr double kMinEfficiency = 0.02;

ClusterSpec one_gpu_cluster(const DeviceModel& device) {
  ClusterSpec cluster;
  cluster.name = "one " + device.name;
  cluster.network = NetworkKind::kFabric;
  cluster.ramp.groups = cluster.ramp.racks = cluster.ramp.servers_per_rack = 1;
  cluster.gpus_per_server = 1;
  cluster.device = device;
  cluster.gpu_memory = device.memory_bytes;
  return cluster;
}

std::string configuration_text(const ProbeRow& row) {
  std::string text = row.model + " batch " + std::to_string(row.batch);
  if (row.seq_len) text += " seq " + std::to_string(row.seq_len);
  if (row.image_size) text += " image " + std::to_string(row.image_size);
  if (row.layers) text += " layers " + std::to_string(row.layers);
  text += std::string(" ") + precision_name(row.precision);
  if (!row.attention.empty()) text += " " + row.attention;
  if (row.checkpointing) text += " ckpt";
  if (!row.optimizer.empty() && row.optimizer != "adamw") text += " " + row.optimizer;
  return text;
}

ParallelJobPtr probe_job(const ProbeRow& row, const DeviceModel& device) {
  ZooOptions options;
  options.batch = row.batch;
  if (row.seq_len) options.seq_len = row.seq_len;
  if (row.image_size) options.image_size = row.image_size;
  if (row.layers) options.layers = row.layers;
  if (!row.attention.empty()) options.attention = parse_attention(row.attention);
  options.precision = row.precision;
  options.device = device;
  TrainingOptions training;
  training.activation_checkpointing = row.checkpointing;
  if (!row.optimizer.empty()) training.optimizer = parse_optimizer(row.optimizer);
  return ParallelJob::from_zoo(row.model, options, training);
}

ProbeComparison compare_row(const ProbeRun& run, const ProbeRow& row,
                            const PhysicalEstimator& estimator) {
  ProbeComparison c;
  c.row = &row;
  c.configuration = configuration_text(row);
  try {
    const ParallelJobPtr job = probe_job(row, estimator.cluster().device);
    // The one-GPU data plan is what single_gpu_step_time() times (there is no
    // throughput table here): one computation gives the time, even where the
    // verdict is oom, and the memory.
    const ParallelPlan plan = estimator.analytic_plan(*job, 1, Strategy::kData);
    c.predicted_seconds = plan.step_time;
    c.predicted_peak_bytes = plan.memory_per_gpu;
    c.predicted_fits = plan.status != PlanStatus::kOom;
  } catch (const InputError& e) {
    throw InputError(run.where(row), e.what());
  }
  return c;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// A constant the search may move, in log space between lo and hi.
struct FreeConstant {
  std::string name;
  std::function<double(const DeviceModel&)> get;
  std::function<void(DeviceModel&, double)> set;
  double lo = 0, hi = 0;
};

FreeConstant efficiency_constant(OpKind kind) {
  const int k = static_cast<int>(kind);
  return {std::string("efficiency.") + op_kind_name(kind),
          [k](const DeviceModel& d) { return d.efficiency[k]; },
          [k](DeviceModel& d, double v) { d.efficiency[k] = v; }, kMinEfficiency, 1.0};
}

// What the probe measured directly (step 1 of the fit), and the free
// constants' bounds around it.
struct Measured {
  double copy_rate = 0;  // bytes/s, 0: not measured
  double host_op = 0;    // seconds per bare op, 0: not measured
};

std::vector<FreeConstant> free_constants(const DeviceModel& start, const Measured& measured) {
  std::vector<FreeConstant> constants;
  for (OpKind kind : {OpKind::kConv, OpKind::kMatmul, OpKind::kLstm})
    constants.push_back(efficiency_constant(kind));
  // A training step's memory-bound kernels (norms, activations, optimizer
  // updates) sustain less than a plain copy, never more.
  const double bandwidth = measured.copy_rate > 0 ? measured.copy_rate : start.memory_bandwidth;
  constants.push_back({"memory_bandwidth", [](const DeviceModel& d) { return d.memory_bandwidth; },
                       [](DeviceModel& d, double v) { d.memory_bandwidth = v; }, 0.3 * bandwidth,
                       bandwidth});
  constants.push_back({"launch_overhead", [](const DeviceModel& d) { return d.launch_overhead; },
                       [](DeviceModel& d, double v) { d.launch_overhead = v; }, 1e-7, 50e-6});
  // One value for every model family: the host's cost describes the machine
  // and PyTorch, not the model (doc/PHYSICAL.md §9).
  constants.push_back({"host.per_op", [](const DeviceModel& d) { return d.host.per_op[0]; },
                       [](DeviceModel& d, double v) { d.host.per_op.fill(v); },
                       std::max(1e-6, measured.host_op), 500e-6});
  constants.push_back({"host.per_step", [](const DeviceModel& d) { return d.host.per_step; },
                       [](DeviceModel& d, double v) { d.host.per_step = v; }, 1e-5, 0.1});
  return constants;
}

Measured read_measured(const ProbeRun& run) {
  Measured m;
  for (const ProbeRow& row : run.rows) {
    if (row.status != ProbeStatus::kOk) continue;
    if (row.kind == ProbeKind::kCopy) m.copy_rate = std::max(m.copy_rate, row.rate);
    if (row.kind == ProbeKind::kHostOp) m.host_op = std::max(m.host_op, row.seconds);
  }
  return m;
}

std::string change_text(const std::string& name, double before, double after, const char* how) {
  return name + " " + significant_number_text(before, 4) + " -> " +
         significant_number_text(after, 4) + " (" + how + ")";
}

// Step 1: each precision's peak from the largest matrix product measured at
// it, so that efficiency.linear of that peak is the measured rate.
void set_measured_rates(const ProbeRun& run, const Measured& measured, DeviceModel& device,
                        std::vector<std::string>& changes) {
  std::array<double, kNumPrecisions> rate{};
  for (const ProbeRow& row : run.rows)
    if (row.kind == ProbeKind::kMatmul && row.status == ProbeStatus::kOk) {
      double& r = rate[static_cast<int>(row.precision)];
      r = std::max(r, row.rate);
    }
  const double linear = device.efficiency_of(OpKind::kLinear);
  for (int p = 0; p < kNumPrecisions; ++p) {
    if (rate[p] <= 0) continue;
    const double peak = rate[p] / linear;
    changes.push_back(
        change_text(std::string("peak_flops.") + precision_name(static_cast<Precision>(p)),
                    device.peak_flops[p], peak, "measured rate / efficiency.linear"));
    device.peak_flops[p] = peak;
  }
  if (measured.copy_rate > 0) {
    changes.push_back(change_text("memory_bandwidth", device.memory_bandwidth, measured.copy_rate,
                                  "measured copy, before the search"));
    device.memory_bandwidth = measured.copy_rate;
  }
  if (measured.host_op > device.host.per_op[0]) device.host.per_op.fill(measured.host_op);
}

// The search's objective: mean squared log error of the timed steps' times.
class StepTimeObjective {
 public:
  explicit StepTimeObjective(const ProbeRun& run) : run_(run) {}

  double operator()(const DeviceModel& device) {
    ++evaluations_;
    const std::vector<ProbeComparison> rows = compare_probe(run_, device);
    double sum = 0;
    int n = 0;
    for (const ProbeComparison& c : rows)
      if (c.timed()) sum += std::pow(std::log(c.predicted_seconds / c.row->seconds), 2), ++n;
    return n ? sum / n : 0;
  }
  int evaluations() const { return evaluations_; }

 private:
  const ProbeRun& run_;
  int evaluations_ = 0;
};

double clamp_log(double value, const FreeConstant& c) {
  return std::clamp(std::log(std::max(value, c.lo)), std::log(c.lo), std::log(c.hi));
}

// Does moving `c` by ±10 % change the objective at all?
bool exercised(const FreeConstant& c, DeviceModel device, StepTimeObjective& objective,
               double base) {
  const double value = c.get(device);
  for (double factor : {1.1, 1 / 1.1}) {
    c.set(device, std::clamp(value * factor, c.lo, c.hi));
    if (std::abs(objective(device) - base) > 1e-12 * std::max(1.0, base)) return true;
  }
  return false;
}

// Step 2: coordinate descent in log space over `constants`.
void coordinate_search(const std::vector<FreeConstant>& constants, DeviceModel& device,
                       StepTimeObjective& objective, double best) {
  for (const FreeConstant& c : constants) c.set(device, std::exp(clamp_log(c.get(device), c)));
  for (double step = kFirstStep; step >= kLastStep && objective.evaluations() < kMaxEvaluations;) {
    bool improved = false;
    for (const FreeConstant& c : constants) {
      const double x = std::log(c.get(device));
      for (double direction : {1.0, -1.0}) {
        const double moved = std::clamp(x + direction * step, std::log(c.lo), std::log(c.hi));
        if (moved == x) continue;
        DeviceModel trial = device;
        c.set(trial, std::exp(moved));
        const double value = objective(trial);
        if (value < best - 1e-12) {
          best = value, device = trial, improved = true;
          break;
        }
      }
    }
    if (!improved) step /= 2;
  }
}

}  // namespace

double ProbeComparison::time_error() const {
  return timed() ? predicted_seconds / row->seconds - 1 : std::numeric_limits<double>::quiet_NaN();
}

double ProbeComparison::memory_error() const {
  return memory_measured() ? predicted_peak_bytes / row->peak_bytes - 1
                           : std::numeric_limits<double>::quiet_NaN();
}

std::vector<ProbeComparison> compare_probe(const ProbeRun& run, const DeviceModel& device) {
  const PhysicalEstimator estimator(one_gpu_cluster(device));
  std::vector<ProbeComparison> rows;
  for (const ProbeRow& row : run.rows)
    if (row.kind == ProbeKind::kStep &&
        (row.status == ProbeStatus::kOk || row.status == ProbeStatus::kOom))
      rows.push_back(compare_row(run, row, estimator));
  return rows;
}

ProbeScore score_probe(const std::vector<ProbeComparison>& rows, double time_tolerance) {
  ProbeScore s;
  std::vector<double> abs_errors;
  for (const ProbeComparison& c : rows) {
    ++s.verdicts;
    s.verdicts_right += c.predicted_fits == c.measured_fits();
    if (c.timed()) {
      ++s.timed;
      s.time_within += std::abs(c.time_error()) <= time_tolerance + 1e-12;
      abs_errors.push_back(std::abs(c.time_error()));
    }
    if (c.memory_measured()) {
      ++s.memory;
      s.memory_within += std::abs(c.memory_error()) <= kMemoryTolerance + 1e-12;
    }
  }
  s.median_abs_time_error = median(abs_errors);
  return s;
}

DeviceFit fit_device(const ProbeRun& run, const DeviceModel& start) {
  DeviceFit fit;
  fit.before = start;
  fit.before_rows = compare_probe(run, start);
  if (std::none_of(fit.before_rows.begin(), fit.before_rows.end(),
                   [](const ProbeComparison& c) { return c.timed(); }))
    throw InputError(run.source, "no training step ran (status ok): nothing to fit");
  const Measured measured = read_measured(run);
  DeviceModel device = start;
  set_measured_rates(run, measured, device, fit.changes);
  StepTimeObjective objective(run);
  const double base = objective(device);
  std::vector<FreeConstant> searched;
  for (FreeConstant& c : free_constants(start, measured)) {
    if (exercised(c, device, objective, base))
      searched.push_back(std::move(c));
    else
      fit.not_exercised.push_back(c.name);
  }
  const DeviceModel measured_only = device;
  coordinate_search(searched, device, objective, base);
  for (const FreeConstant& c : searched)
    fit.changes.push_back(change_text(c.name, c.get(measured_only), c.get(device), "searched"));
  device.name = start.name + " (probe-fitted)";
  fit.after = device;
  fit.after_rows = compare_probe(run, device);
  fit.evaluations = objective.evaluations();
  return fit;
}

std::string builtin_device_for(const std::string& probe_device) {
  std::string text;
  for (char ch : probe_device)
    text += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const auto has = [&](const char* part) { return text.find(part) != std::string::npos; };
  // PCIe and NVL boards have other clocks, power and memory than the SXM
  // parts the built-in files describe: those need --device.
  if (has("pcie") || has("nvl")) return "";
  // Most specific first: "GH200" contains "h200", "A100-SXM4-40GB" "a100".
  if (has("gh200")) return "gh200";
  if (has("h200")) return "h200";
  if (has("h100")) return "h100-sxm";
  if (has("b200")) return "b200";
  if (has("l40s")) return "l40s";
  if (has("a100")) return has("40gb") ? "a100-40gb" : "a100";
  if (has("v100")) return "v100";
  if (has("mi300x")) return "mi300x";
  return "";
}

}  // namespace pacml::sim
