#include "sim/cli/history_calibrate.h"

#include <iostream>

#include "core/correction/correction_file.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "sim/cli/table.h"
#include "sim/history/correction_fit.h"
#include "sim/report/csv.h"

namespace pacml::cli {

void declare_history_fit_options(Args& args, CalibrateOptions& o) {
  args.bind("log", "DECISIONS", "with --sacct instead of --history: job_submit/pacml's log", o.log);
  args.bind("sacct", "FILE",
            "with --log: sacct -P --format=JobID,State,Elapsed,Start,Comment output", o.sacct);
  args.bind_parsed(
      "startup", "SECONDS",
      "with --history: seconds of each job's elapsed time before its first step",
      o.fit.startup_seconds,
      [](const std::string& text, const std::string& where) {
        return parse_non_negative(text, where, where);
      },
      exact_number_text(o.fit.startup_seconds));
  args.bind_parsed(
      "prior-jobs", "K|auto",
      "with --history: the prior's weight in jobs, a factor from n jobs moves n/(n+K) of "
      "the way; auto: estimated from the spread within and between models (8 where "
      "fewer than 3 models can tell)",
      o.fit.prior_jobs,
      [](const std::string& text, const std::string&) { return parse_prior_jobs(text); }, "auto");
  args.bind("min-jobs", "N", "with --history: refuse with fewer usable completed jobs",
            o.fit.min_jobs, 1, 1L << 40);
  args.bind("version-name", "TEXT",
            "with --history: the correction's version (default: the --out file's name)",
            o.version_name);
}

std::optional<double> parse_prior_jobs(const std::string& text) {
  if (text == "auto") return std::nullopt;
  return parse_non_negative(text, "--prior-jobs", "--prior-jobs (a weight in jobs, or auto)");
}

std::vector<sim::JoinedJob> join_files(const std::string& log, const std::string& sacct) {
  sim::HistoryReport log_report, sacct_report;
  const auto decisions = sim::read_decision_log_file(log, log_report);
  const auto accounting = sim::read_sacct_accounting_file(sacct, sacct_report);
  sim::JoinResult joined = sim::join_history(decisions, accounting);
  std::cerr << log << ": " << log_report.lines << " decisions, " << decisions.size()
            << " with a predicted step time\n";
  for (const auto& [reason, n] : log_report.skipped)
    std::cerr << "  not joined: " << n << " " << reason << "\n";
  std::cerr << sacct << ": " << accounting.size() << " jobs";
  for (const auto& [reason, n] : sacct_report.skipped) std::cerr << ", " << n << " " << reason;
  std::cerr << "; " << joined.accounting_without_decision << " without a pacml decision\n";
  for (const std::string& why : joined.unjoined) std::cerr << "  not joined: " << why << "\n";
  std::cerr << "joined: " << joined.joined.size() << " jobs\n";
  return std::move(joined.joined);
}

namespace {

std::string percent(double x) {
  return significant_number_text(100 * x, 3) + " %";
}

std::string error_line(const sim::ErrorSummary& e) {
  return "median |predicted/measured - 1| " + percent(e.median) + " (95 % bootstrap interval " +
         percent(e.lo) + " - " + percent(e.hi) + "), median log(predicted/measured) " +
         significant_number_text(e.median_log_ratio, 3);
}

std::string prior_line(const sim::PriorWeight& p) {
  std::string line = "prior: k = " + significant_number_text(p.jobs, 3) + " jobs";
  if (p.estimated)
    return line + ", estimated from " + std::to_string(p.groups) +
           " models (log ratios' sd within a model " + significant_number_text(p.within_log_sd, 3) +
           ", between models " + significant_number_text(p.between_log_sd, 3) + ")";
  return line + " (stated, or the default where fewer than " +
         std::to_string(sim::kMinPriorGroups) + " models can estimate it)";
}

void print_fit(const sim::CorrectionFit& fit, const std::map<std::string, long>& excluded,
               const std::vector<sim::FitSample>& samples) {
  long reported = 0;
  for (const sim::FitSample& s : samples) reported += s.reported ? 1 : 0;
  std::cout << "usable: " << samples.size() << " jobs (" << reported
            << " timed by the job itself, pacml-report-steps; "
            << static_cast<long>(samples.size()) - reported
            << " completed, from their elapsed time)\n";
  for (const auto& [reason, n] : excluded) std::cout << "excluded: " << n << " " << reason << "\n";
  Table table({"model", "device", "jobs", "set aside", "fit", "compute", "comm", "shrunk compute",
               "shrunk comm"});
  for (const sim::GroupFit& g : fit.groups)
    table.add({g.model, g.device, std::to_string(g.jobs), std::to_string(g.set_aside),
               g.split ? "compute+comm" : "total only", significant_number_text(g.raw.compute, 4),
               significant_number_text(g.raw.comm, 4), significant_number_text(g.shrunk.compute, 4),
               significant_number_text(g.shrunk.comm, 4)});
  table.print(std::cout);
  std::cout << prior_line(fit.prior) << "\n";
  std::cout << "before: " << error_line(fit.before) << "\nafter:  " << error_line(fit.after)
            << "\n(in-sample: the same jobs the correction was fitted on)\n";
}

}  // namespace

int history_section(const CalibrateOptions& o) {
  const std::pair<const char*, bool> others[] = {{"elasticflow", o.elasticflow.has_value()},
                                                 {"probe", o.probe.has_value()},
                                                 {"device", o.device.has_value()},
                                                 {"json", o.json}};
  for (const auto& [other, given] : others)
    if (given)
      throw InputError(std::string("--") + other, "does not apply with --history or --log");
  if (!o.out) throw InputError("--out", "give the correction file to write");
  std::vector<sim::JoinedJob> jobs;
  if (o.history) {
    if (o.log || o.sacct)
      throw InputError("--history", "give either --history or --log with --sacct, not both");
    jobs = sim::read_joined_csv_file(*o.history);
  } else {
    if (!o.log || !o.sacct) throw InputError("--log", "--log and --sacct go together");
    jobs = join_files(*o.log, *o.sacct);
  }
  sim::FitOptions options = o.fit;
  const std::string out = *o.out;
  options.version = o.version_name.value_or(out.substr(out.find_last_of('/') + 1));
  std::map<std::string, long> excluded;
  const std::vector<sim::FitSample> samples = sim::usable_samples(jobs, options, excluded);
  const sim::CorrectionFit fit = sim::fit_correction(samples, options);
  print_fit(fit, excluded, samples);
  CorrectionProvenance provenance;
  provenance.fitted_from = std::to_string(samples.size()) + " jobs of " +
                           (o.history ? *o.history : *o.log + " joined with " + *o.sacct);
  provenance.prior_jobs = fit.prior.jobs;
  sim::write_text_file(out, correction_file_text(fit.correction, provenance));
  std::cerr << "pacml calibrate: wrote " << out << "\n";
  return 0;
}

}  // namespace pacml::cli
