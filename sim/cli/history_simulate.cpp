#include "sim/cli/history_simulate.h"

#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/util/args.h"
#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/statistics.h"
#include "sim/cli/history_calibrate.h"
#include "sim/cli/table.h"
#include "sim/experiment/evaluation.h"
#include "sim/history/history_simulation.h"
#include "sim/report/csv.h"
#include "sim/report/plots.h"

namespace pacml::cli {
namespace {

// The goal of issue 31: once settled, the learning replay's median error
// and its deadline-met rate against the replay that knows the truth.
constexpr double kGoalError = 0.10, kGoalMetGap = 0.02;

struct SimCli {
  sim::HistorySimOptions sim;
  long window = 250;  // settled outcomes per point of the CSV and plot
  std::string out;
};

// Binds every option to its member of `c`: the simulation's options are the
// simulator's own struct, filled by CLI11.
void bind_options(Args& args, SimCli& c) {
  sim::HistorySimOptions& o = c.sim;
  const auto non_negative = [](const std::string& text, const std::string& where) {
    return parse_non_negative(text, where, where);
  };
  args.bind("cluster", "PRESET|FILE", "the GPU cluster", o.cluster);
  args.bind("workload", "NAME|FILE", "a fitted workload", o.workload);
  args.bind("load", "X", "x the workload's arrival rate", o.load);
  args.bind("jobs", "N", "jobs drawn", o.jobs, 1, 10000000);
  args.bind_parsed(
      "seed", "S", "draws the jobs, the world's factors and its noise", o.seed,
      [](const std::string& text, const std::string& where) {
        return static_cast<std::uint64_t>(parse_integer(text, 0, 1L << 62, where, "value"));
      },
      std::to_string(o.seed));
  args.bind("policy", "POLICY", "the GPU policy", o.policy);
  args.bind_parsed("admission", "MODE", "immediate or queue", o.admission, gpu::parse_admission,
                   gpu::admission_name(o.admission));
  args.bind("bias", "X", "the world's factor on every model", o.bias);
  args.bind("spread-low", "X", "the per-model factors' low end", o.spread_lo);
  args.bind("spread-high", "X", "the per-model factors' high end", o.spread_hi);
  args.bind_parsed("noise", "SD", "log-sd of a job's step time around its model's", o.noise,
                   non_negative, exact_number_text(o.noise));
  args.bind("refit-every", "N", "completed jobs between refits", o.refit_every, 1, 1000000);
  args.bind("settled-after", "N", "completions of a model before its error counts as settled",
            o.settled_after, 0, 100000000);
  args.bind_parsed(
      "prior-jobs", "K|auto",
      "the fit's prior weight in jobs; auto: estimated at each refit (as pacml calibrate "
      "--history does)",
      o.fit.prior_jobs,
      [](const std::string& text, const std::string&) { return parse_prior_jobs(text); }, "auto");
  args.bind("window", "N", "outcomes per point of the CSV and plot", c.window, 1, 1000000);
  args.bind("out", "DIR", "write history.csv, history.json and history.png there", c.out);
}

// (completed jobs so far, median error of the window's completed jobs,
// deadline-met share of the window's outcomes), one point per `window`
// outcomes in the order the replay settled them.
struct Point {
  long completed = 0;
  double error = NAN, met = NAN;
};

std::vector<Point> windows(const sim::SimReplay& r, long window) {
  std::vector<Point> points;
  long completed = 0, met = 0, n = 0;
  std::vector<double> errors;
  for (const sim::SimOutcome& o : r.outcomes) {
    ++n, met += o.met;
    if (o.completed) ++completed, errors.push_back(o.error);
    if (n < window) continue;
    points.push_back({completed, errors.empty() ? NAN : median(errors),
                      static_cast<double>(met) / static_cast<double>(n)});
    n = met = 0, errors.clear();
  }
  return points;
}

std::string points_csv(const sim::HistorySimResult& result, long window) {
  std::ostringstream out;
  out << "replay,completed,window_median_error,window_deadline_met\n";
  for (const sim::SimReplay& r : result.replays)
    for (const Point& p : windows(r, window))
      out << r.name << ',' << p.completed << ',' << sim::csv_number(p.error) << ','
          << sim::csv_number(p.met) << "\n";
  return out.str();
}

nlohmann::json result_json(const SimCli& c, const sim::HistorySimResult& result) {
  nlohmann::json j = {{"bias", c.sim.bias},
                      {"spread", {c.sim.spread_lo, c.sim.spread_hi}},
                      {"noise", c.sim.noise},
                      {"jobs", c.sim.jobs},
                      {"seed", c.sim.seed},
                      {"policy", c.sim.policy},
                      {"refit_every", c.sim.refit_every},
                      {"settled_after", c.sim.settled_after},
                      {"device", result.device}};
  for (const auto& [model, f] : result.truth)
    j["truth"][model] = {{"compute", f.compute}, {"comm", f.comm}};
  for (const sim::SimReplay& r : result.replays) {
    const auto number = [](double x) {
      return std::isnan(x) ? nlohmann::json() : nlohmann::json(x);
    };
    j["replays"][r.name] = {{"deadline_met_rate", r.stats.deadline_met_rate},
                            {"started", r.stats.started},
                            {"arrived", r.stats.arrived},
                            {"median_error", number(r.median_error)},
                            {"settled_median_error", number(r.settled_median_error)},
                            {"settled_jobs", r.settled_jobs},
                            {"settled_outcomes", r.settled_outcomes},
                            {"settled_met_rate", number(r.settled_met_rate)},
                            {"refits", r.refits}};
    // learns: the factors its last refit ended with, beside "truth"
    if (r.refits > 0)
      j["replays"][r.name]["prior"] = {{"jobs", r.last_prior.jobs},
                                       {"estimated", r.last_prior.estimated},
                                       {"within_log_sd", r.last_prior.within_log_sd},
                                       {"between_log_sd", r.last_prior.between_log_sd}};
    for (const auto& [key, f] : r.last_correction.factors)
      j["replays"][r.name]["correction"][key.first] = {{"compute", f.compute}, {"comm", f.comm}};
  }
  return j;
}

std::string write_plot(const std::string& dir, const sim::HistorySimResult& result, long window) {
  std::ostringstream data, script;
  int index = 0;
  for (const sim::SimReplay& r : result.replays) {
    data << "# " << r.name << "\n";
    for (const Point& p : windows(r, window))
      data << p.completed << ' ' << sim::csv_number(100 * p.error) << ' ' << sim::csv_number(p.met)
           << "\n";
    data << "\n\n";
  }
  script << "# Generated by pacml history simulate; rerun with: gnuplot history.gp\n"
         << "set terminal pngcairo noenhanced size 1400,500 font ',10'\n"
         << "set output 'history.png'\nset multiplot layout 1,2 title "
         << sim::gnuplot_string("Predictions that learn: " + std::to_string(window) +
                                "-job windows, in the order jobs settled")
         << "\nset xlabel 'completed jobs'\nset grid\nset key top right\n";
  for (const auto& [column, title] : {std::make_pair(2, "median |predicted/true - 1| (%)"),
                                      std::make_pair(3, "deadline-met share")}) {
    script << "set title " << sim::gnuplot_string(title) << "\nplot ";
    index = 0;
    for (const sim::SimReplay& r : result.replays) {
      script << (index ? ", " : "") << "'history.dat' index " << index << " using 1:" << column
             << " with linespoints title " << sim::gnuplot_string(r.name);
      ++index;
    }
    script << "\n";
  }
  script << "unset multiplot\n";
  sim::write_text_file(dir + "/history.dat", data.str());
  return sim::run_gnuplot(dir, "history.gp", script.str(), dir + "/history.png");
}

void print_result(const SimCli& c, const sim::HistorySimResult& result) {
  std::cout << "world: per-model compute and comm factors log-uniform in ["
            << exact_number_text(c.sim.spread_lo) << ", " << exact_number_text(c.sim.spread_hi)
            << "] x bias " << exact_number_text(c.sim.bias) << ", job noise log-sd "
            << exact_number_text(c.sim.noise) << ", seed " << c.sim.seed << ", on " << result.device
            << "\n";
  Table table({"replay", "arrived", "completed", "deadline met", "median error", "settled jobs",
               "settled met", "settled median error", "refits"});
  for (const sim::SimReplay& r : result.replays)
    table.add({r.name, std::to_string(r.stats.arrived), std::to_string(r.stats.started),
               significant_number_text(r.stats.deadline_met_rate, 4),
               significant_number_text(100 * r.median_error, 3) + " %",
               std::to_string(r.settled_outcomes), significant_number_text(r.settled_met_rate, 4),
               significant_number_text(100 * r.settled_median_error, 3) + " %",
               std::to_string(r.refits)});
  table.print(std::cout);
  std::cout << "settled: outcomes whose model had " << c.sim.settled_after
            << " completed jobs in that replay when they started (or left unstarted)\n";
  const sim::SimReplay& learns = result.replays[1];
  const sim::SimReplay& truth = result.replays[2];
  const double gap = truth.settled_met_rate - learns.settled_met_rate;
  std::cout << "goal: settled median error <= " << exact_number_text(100 * kGoalError)
            << " %: " << (learns.settled_median_error <= kGoalError ? "met" : "NOT met")
            << "; deadline-met within " << exact_number_text(kGoalMetGap)
            << " of the truth replay once settled (gap " << significant_number_text(gap, 3)
            << "): " << (std::fabs(gap) <= kGoalMetGap ? "met" : "NOT met") << "\n";
}

}  // namespace

int history_simulate(const std::vector<std::string>& argv) {
  Args args("pacml history simulate [options] [--out DIR]",
            "Replays a fitted workload in a world whose true step times differ from pacml's\n"
            "predictions (per-model compute and comm factors drawn log-uniform in\n"
            "[--spread-low, --spread-high], times --bias; per-job noise), three times over\n"
            "the same jobs: predicting as the model does (never), refitting a correction\n"
            "from the replay's own completed jobs every --refit-every completions (learns),\n"
            "and with the true factors (truth). Prints deadline-met and the median\n"
            "prediction error, overall and once each model has --settled-after completions.");
  SimCli c;
  bind_options(args, c);
  if (!args.parse(argv)) return 0;
  const sim::HistorySimResult result = sim::simulate_history(c.sim);
  print_result(c, result);
  if (!c.out.empty()) {
    sim::make_directories(c.out);
    sim::write_text_file(c.out + "/history.csv", points_csv(result, c.window));
    sim::write_text_file(c.out + "/history.json", result_json(c, result).dump(2) + "\n");
    std::cerr << write_plot(c.out, result, c.window) << "\n";
  }
  return 0;
}

}  // namespace pacml::cli
