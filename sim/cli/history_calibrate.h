// `pacml calibrate --history`: a site correction fitted from the site's own
// completed jobs (sim/history/correction_fit.h, doc/PHYSICAL.md §11), and
// the joined history both it and `pacml history join` read.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/util/args.h"
#include "sim/history/history_records.h"

namespace pacml::cli {

// Declares --log, --sacct, --startup, --prior-jobs, --min-jobs, --version-name
// (calibrate's --history and --out are its own).
void declare_history_fit_options(Args& args);

// --prior-jobs: "auto" (unset: the fit estimates it) or a weight in jobs.
std::optional<double> parse_prior_jobs(const std::string& text);

// The decision log joined with the accounting, with what could not be
// joined and why printed to stderr.
std::vector<sim::JoinedJob> join_files(const std::string& log, const std::string& sacct);

// The --history section: prints the fit and writes --out; 0, or an
// InputError when the evidence is too thin.
int history_section(const Args& args);

}  // namespace pacml::cli
