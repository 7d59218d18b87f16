// `pacml device list|show|fit`: the GPUs pacml knows (contrib/devices), one
// device file's text, and a device file fitted to a probe's measurements
// (doc/PHYSICAL.md §10).
#include <ctime>
#include <iostream>

#include "core/cluster/cluster_presets.h"
#include "core/cluster/cluster_spec.h"
#include "core/util/args.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "sim/calibration/device_fit.h"
#include "sim/cli/command.h"
#include "sim/cli/probe_report.h"
#include "sim/cli/table.h"
#include "sim/experiment/evaluation.h"
#include "sim/report/csv.h"

namespace pacml::cli {
namespace {

std::vector<std::string> builtin_names() {
  std::vector<std::string> names = {"a100"};
  for (const EmbeddedFile& device : builtin_device_files())
    if (std::string(device.name) != "a100") names.push_back(device.name);
  return names;
}

int list(const std::vector<std::string>& argv) {
  Args args("pacml device list",
            "The built-in GPUs (contrib/devices): name, memory, sustained bandwidth and dense\n"
            "peaks. Any of them goes to --device, or to a cluster file's device:.");
  if (!args.parse(argv)) return 0;
  Table table(
      {"device", "model", "memory GB", "bandwidth TB/s", "fp32 TFLOP/s", "tf32", "bf16", "fp16"});
  for (const std::string& name : builtin_names()) {
    const DeviceModel d = load_device(name, "device");
    std::vector<std::string> row = {name, d.name, significant_number_text(d.memory_bytes / 1e9, 4),
                                    significant_number_text(d.memory_bandwidth / 1e12, 3)};
    for (Precision p : {Precision::kFp32, Precision::kTf32, Precision::kBf16, Precision::kFp16}) {
      const double peak = d.peak_flops[static_cast<int>(p)];
      row.push_back(peak > 0 ? significant_number_text(peak / 1e12, 4) : "-");
    }
    table.add(std::move(row));
  }
  table.print(std::cout);
  return 0;
}

int show(const std::vector<std::string>& argv) {
  Args args("pacml device show NAME|FILE",
            "A device as a device file (every key, the host's cost included): a starting\n"
            "point for a GPU pacml has no file for.");
  std::string device;
  args.bind_positional("device", "a built-in name ('pacml device list') or a device file", device);
  if (!args.parse(argv)) return 0;
  std::cout << device_file_text(load_device(device, "NAME"), {});
  return 0;
}

std::string today() {
  char text[16];
  const std::time_t now = std::time(nullptr);
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

std::vector<std::string> fitted_file_comment(const sim::ProbeRun& run, const sim::DeviceFit& fit) {
  const auto header = [&](const char* key) { return probe_header(run, key); };
  const sim::ProbeScore before = sim::score_probe(fit.before_rows, kFittedTimeTolerance);
  const sim::ProbeScore after = sim::score_probe(fit.after_rows, kFittedTimeTolerance);
  std::vector<std::string> comment = {
      "Fitted by `pacml device fit` on " + today() + " to " + run.source + ":",
      "a probe of " + header("device") + " (torch " + header("torch") + ", CUDA " + header("cuda") +
          ", " + header("date") + "), starting from " + fit.before.name + ".",
      "Step time within ±20 %: " + std::to_string(before.time_within) + " of " +
          std::to_string(before.timed) + " before, " + std::to_string(after.time_within) + " of " +
          std::to_string(after.timed) + " fitted (median |error| " +
          significant_number_text(100 * before.median_abs_time_error, 3) + " % -> " +
          significant_number_text(100 * after.median_abs_time_error, 3) + " %).",
      "peak_flops: the probe's largest matrix-product rate / efficiency.linear, so a large",
      "linear layer runs at the measured rate (not the datasheet's peak). What changed:"};
  for (const std::string& change : fit.changes) comment.push_back("  " + change);
  comment.push_back("doc/PHYSICAL.md §10 explains the fit; format: core/zoo/README.md.");
  return comment;
}

int fit(const std::vector<std::string>& argv) {
  Args args("pacml device fit PROBE.csv --out DEVICE.yaml [--device NAME|FILE] [--report DIR]",
            "Fits a device file's free constants to what contrib/probe/pacml-probe measured\n"
            "on one GPU: each precision's peak from the measured matrix-product rate, the\n"
            "bandwidth from the copy, then the op efficiencies, launch overhead and the\n"
            "host's cost per op and per step by a search that minimises the step-time\n"
            "error. Prints every configuration measured against predicted, before and\n"
            "after, and writes the fitted device file.");
  std::string probe;
  std::optional<std::string> out, device, report;
  bool json = false;
  args.bind_positional("probe", "the probe's CSV (contrib/probe/pacml-probe --out)", probe);
  args.bind("out", "DEVICE.yaml", "the fitted device file to write (required)", out);
  args.bind("device", "NAME|FILE",
            "the device file to start from (default: the built-in the probe's '# device:' "
            "line names)",
            device);
  args.bind("report", "DIR", "also write probe.csv, probe.json and probe.png there", report);
  args.bind_flag("json", "print the comparison as JSON instead of a table", json);
  if (!args.parse(argv)) return 0;
  if (!out) throw InputError("--out", "give the device file to write");
  const sim::ProbeRun run = sim::read_probe_file(probe);
  const sim::DeviceFit result = sim::fit_device(run, probe_starting_device(device, run));
  sim::write_text_file(*out, device_file_text(result.after, fitted_file_comment(run, result)));
  emit_probe_report(run, result, report.value_or(""), json);
  std::cerr << "pacml device fit: wrote " << *out << "\n";
  return 0;
}

int device_command(const std::vector<std::string>& argv) {
  static const VerbTable verbs = {
      {"list", {list, "the built-in device files"}},
      {"show", {show, "one device's constants (NAME or FILE)"}},
      {"fit", {fit, "fit a device file from a probe run (PROBE.csv --out DEVICE.yaml)"}},
  };
  return run_verb("device", "The GPUs pacml costs jobs on.", verbs, argv);
}

}  // namespace

PACML_COMMAND("device", "the GPUs pacml knows, and a device file fitted to a probe's measurements",
              device_command);

}  // namespace pacml::cli
