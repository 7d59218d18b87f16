// `pacml calibrate --history`: a site correction fitted from the site's own
// completed jobs (sim/history/correction_fit.h, doc/PHYSICAL.md §11), and
// the joined history both it and `pacml history join` read.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/util/args.h"
#include "sim/history/correction_fit.h"
#include "sim/history/history_records.h"

namespace pacml::cli {

// `pacml calibrate`'s options, which CLI11 fills: the scaling points', the
// probe's and the history fit's (the sections refuse each other's).
struct CalibrateOptions {
  std::optional<std::string> elasticflow;  // scaling points
  std::optional<std::string> probe;        // the probe section
  std::optional<std::string> device;       // with --probe
  std::optional<std::string> history;      // the history section
  std::optional<std::string> log, sacct;   // or these two
  sim::FitOptions fit;  // --startup, --prior-jobs, --min-jobs bound to its members
  std::optional<std::string> version_name;
  std::optional<std::string> out;
  bool json = false;
  bool history_given() const { return history || log || sacct; }
};

// Declares --log, --sacct, --startup, --prior-jobs, --min-jobs, --version-name
// (calibrate's --history and --out are its own), bound to `options`.
void declare_history_fit_options(Args& args, CalibrateOptions& options);

// The options of the history fit alone, which the other sections refuse.
inline const std::vector<std::string> kHistoryFitOnly = {"startup", "prior-jobs", "min-jobs",
                                                         "version-name"};

// --prior-jobs: "auto" (unset: the fit estimates it) or a weight in jobs.
std::optional<double> parse_prior_jobs(const std::string& text);

// The decision log joined with the accounting, with what could not be
// joined and why printed to stderr.
std::vector<sim::JoinedJob> join_files(const std::string& log, const std::string& sacct);

// The --history section: prints the fit and writes --out; 0, or an
// InputError when the evidence is too thin.
int history_section(const CalibrateOptions& options);

}  // namespace pacml::cli
