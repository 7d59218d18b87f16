#include "sim/cli/probe_report.h"

#include <cmath>
#include <iostream>
#include <sstream>

#include "core/cluster/cluster_spec.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "sim/cli/table.h"
#include "sim/experiment/evaluation.h"
#include "sim/report/csv.h"
#include "sim/report/plots.h"

namespace pacml::cli {
namespace {

using sim::ProbeComparison;

std::string percent(double error) {
  if (std::isnan(error)) return "";
  return (error >= 0 ? "+" : "") + significant_number_text(100 * error, 3) + "%";
}

std::string seconds_text(double seconds) {
  return significant_number_text(seconds, 4);
}
std::string gigabytes(double bytes) {
  return significant_number_text(bytes / 1e9, 3);
}
const char* verdict(bool fits) {
  return fits ? "fits" : "oom";
}

void print_rows(std::ostream& out, const sim::DeviceFit& fit) {
  Table table({"configuration", "measured s", "before s", "error", "fitted s", "error",
               "measured GB", "pacml GB", "error", "verdict (measured/pacml)"});
  for (size_t i = 0; i < fit.before_rows.size(); ++i) {
    const ProbeComparison& before = fit.before_rows[i];
    const ProbeComparison& after = fit.after_rows[i];
    const bool timed = before.timed();
    table.add(
        {before.configuration, timed ? seconds_text(before.row->seconds) : "-",
         seconds_text(before.predicted_seconds), percent(before.time_error()),
         seconds_text(after.predicted_seconds), percent(after.time_error()),
         before.memory_measured() ? gigabytes(before.row->peak_bytes) : "-",
         gigabytes(before.predicted_peak_bytes), percent(before.memory_error()),
         std::string(verdict(before.measured_fits())) + "/" + verdict(before.predicted_fits)});
  }
  table.print(out);
}

void print_score(std::ostream& out, const char* what, const sim::ProbeScore& s, double tolerance) {
  out << what << ": step time within ±" << significant_number_text(100 * tolerance, 2) << "% on "
      << s.time_within << " of " << s.timed << " (median |error| "
      << significant_number_text(100 * s.median_abs_time_error, 3)
      << "%); peak memory within ±25% on " << s.memory_within << " of " << s.memory
      << "; fits/oom right on " << s.verdicts_right << " of " << s.verdicts << "\n";
}

nlohmann::json comparison_json(const ProbeComparison& c) {
  const auto number_or_null = [](double v) {
    return std::isnan(v) ? nlohmann::json() : nlohmann::json(v);
  };
  return {{"predicted_seconds", c.predicted_seconds},
          {"time_error", number_or_null(c.time_error())},
          {"predicted_peak_bytes", c.predicted_peak_bytes},
          {"memory_error", number_or_null(c.memory_error())},
          {"predicted_fits", c.predicted_fits}};
}

}  // namespace

DeviceModel probe_starting_device(const std::optional<std::string>& device,
                                  const sim::ProbeRun& run) {
  if (device) return load_device(*device, "--device");
  const auto it = run.header.find("device");
  const std::string probed = it == run.header.end() ? "" : it->second;
  const std::string name = sim::builtin_device_for(probed);
  if (name.empty())
    throw InputError("--device", "the probe ran on '" + probed +
                                     "', which no built-in device file describes; give "
                                     "--device NAME|FILE to start from");
  return load_device(name, "--device");
}

std::string probe_header(const sim::ProbeRun& run, const std::string& key) {
  const auto it = run.header.find(key);
  return it == run.header.end() ? std::string("?") : it->second;
}

void emit_probe_report(const sim::ProbeRun& run, const sim::DeviceFit& fit, const std::string& dir,
                       bool json) {
  if (!dir.empty()) {
    sim::make_directories(dir);
    std::cerr << write_probe_report(dir, run, fit) << "\n";
  }
  if (json)
    std::cout << probe_report_json(run, fit).dump(2) << "\n";
  else
    print_probe_report(std::cout, run, fit);
}

void print_probe_report(std::ostream& out, const sim::ProbeRun& run, const sim::DeviceFit& fit) {
  const auto header = [&](const char* key) { return probe_header(run, key); };
  out << "probe " << run.source << ": " << header("device") << ", torch " << header("torch") << ", "
      << header("date") << "\nbefore: " << fit.before.name << "; fitted: " << fit.after.name
      << "\n\n";
  print_rows(out, fit);
  out << "\nthe fit (" << fit.evaluations << " predictions of the probe):\n";
  for (const std::string& change : fit.changes) out << "  " << change << "\n";
  if (!fit.not_exercised.empty()) {
    out << "  not exercised by these steps, kept:";
    for (const std::string& name : fit.not_exercised) out << " " << name;
    out << "\n";
  }
  out << "\n";
  print_score(out, "before", sim::score_probe(fit.before_rows, kDatasheetTimeTolerance),
              kDatasheetTimeTolerance);
  print_score(out, "fitted", sim::score_probe(fit.after_rows, kFittedTimeTolerance),
              kFittedTimeTolerance);
}

nlohmann::json probe_report_json(const sim::ProbeRun& run, const sim::DeviceFit& fit) {
  nlohmann::json rows = nlohmann::json::array();
  for (size_t i = 0; i < fit.before_rows.size(); ++i) {
    const ProbeComparison& before = fit.before_rows[i];
    nlohmann::json row = {{"configuration", before.configuration},
                          {"line", before.row->line},
                          {"measured_status", sim::probe_status_name(before.row->status)},
                          {"measured_seconds", nullptr},
                          {"measured_peak_bytes", nullptr},
                          {"before", comparison_json(before)},
                          {"fitted", comparison_json(fit.after_rows[i])}};
    if (before.timed()) row["measured_seconds"] = before.row->seconds;
    if (before.memory_measured()) row["measured_peak_bytes"] = before.row->peak_bytes;
    rows.push_back(std::move(row));
  }
  return {{"probe", run.source},
          {"header", run.header},
          {"before", fit.before.name},
          {"fitted", fit.after.name},
          {"changes", fit.changes},
          {"not_exercised", fit.not_exercised},
          {"rows", rows}};
}

std::string write_probe_report(const std::string& dir, const sim::ProbeRun& run,
                               const sim::DeviceFit& fit) {
  std::ostringstream csv, data;
  csv << "configuration,measured_status,measured_seconds,before_seconds,before_error,"
         "fitted_seconds,fitted_error,measured_peak_bytes,predicted_peak_bytes,memory_error,"
         "predicted_fits\n";
  for (size_t i = 0; i < fit.before_rows.size(); ++i) {
    const ProbeComparison& b = fit.before_rows[i];
    const ProbeComparison& a = fit.after_rows[i];
    const auto optional = [](bool has, double v) { return has ? sim::csv_number(v) : ""; };
    csv << sim::csv_field(b.configuration) << ',' << sim::probe_status_name(b.row->status) << ','
        << optional(b.timed(), b.row->seconds) << ',' << sim::csv_number(b.predicted_seconds) << ','
        << optional(b.timed(), b.time_error()) << ',' << sim::csv_number(a.predicted_seconds) << ','
        << optional(a.timed(), a.time_error()) << ','
        << optional(b.memory_measured(), b.row->peak_bytes) << ','
        << sim::csv_number(b.predicted_peak_bytes) << ','
        << optional(b.memory_measured(), b.memory_error()) << ','
        << (b.predicted_fits ? "yes" : "no") << "\n";
    if (b.timed())
      data << sim::csv_number(b.row->seconds) << ' ' << sim::csv_number(b.predicted_seconds) << ' '
           << sim::csv_number(a.predicted_seconds) << "\n";
  }
  sim::write_text_file(dir + "/probe.csv", csv.str());
  sim::write_text_file(dir + "/probe.json", probe_report_json(run, fit).dump(2) + "\n");
  sim::write_text_file(dir + "/probe.dat", data.str());
  std::ostringstream script;
  script << "# Generated by pacml; rerun with: gnuplot probe.gp\n"
         << "set terminal pngcairo noenhanced size 800,700 font ',10'\nset output 'probe.png'\n"
         << "set title " << sim::gnuplot_string("One-GPU step time: " + fit.before.name)
         << "\nset logscale xy\nset xlabel 'measured (s)'\nset ylabel 'pacml (s)'\n"
         << "set key top left\nset grid\nset size ratio -1\n"
         << "plot x with lines dt 2 lc 'gray' title 'exact', 1.2*x with lines dt 3 lc 'gray' "
            "title '±20%', 0.8*x with lines dt 3 lc 'gray' notitle, "
            "'probe.dat' using 1:2 with points pt 6 lc 1 title 'before the fit', "
            "'' using 1:3 with points pt 7 lc 2 title 'fitted'\n";
  return sim::run_gnuplot(dir, "probe.gp", script.str(), dir + "/probe.png");
}

}  // namespace pacml::cli
