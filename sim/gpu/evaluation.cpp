#include "sim/gpu/evaluation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <sstream>

#include "core/cluster/cluster_spec.h"
#include "core/gpu/policy.h"
#include "core/parallel/duration_model.h"
#include "core/util/numbers.h"
#include "sim/experiment/evaluation.h"
#include "sim/gpu/fitted_workload.h"
#include "sim/history/corrected_predictions.h"
#include "sim/report/csv.h"
#include "sim/report/plots.h"
#include "sim/report/text_table.h"
#include "sim/workload/paths.h"

namespace pacml::gpu {
namespace {

// Each reported metric once: its name in JSON/CSV, where the summary keeps
// it, and where one replay's stats keep it.
struct Metric {
  const char* key;
  sim::Stat GroupSummary::*summary;
  double ReplayStats::*run;
};

const std::vector<Metric>& metrics() {
  using G = GroupSummary;
  using S = ReplayStats;
  static const std::vector<Metric> list = {
      {"deadline_met_rate", &G::deadline_met_rate, &S::deadline_met_rate},
      {"blocking_rate", &G::blocking_rate, &S::blocking_rate},
      {"unservable_rate", &G::unservable_rate, &S::unservable_rate},
      {"gpu_hours", &G::gpu_hours, &S::gpu_hours},
      {"gpu_hours_per_met", &G::gpu_hours_per_met, &S::gpu_hours_per_met},
      {"utilisation", &G::utilisation, &S::utilisation},
      {"queue_delay", &G::queue_delay, &S::queue_delay_mean},
      {"mean_gpus", &G::mean_gpus, &S::mean_gpus},
      {"turned_away_rate", &G::turned_away_rate, &S::turned_away_rate},
      {"no_start_rate", &G::no_start_rate, &S::no_start_rate},
      {"late_rate", &G::late_rate, &S::late_rate},
  };
  return list;
}

// "gpt2 L18 H1024 b32", "resnet50 b128": a job kind as people name it.
std::string job_kind(const ParallelJob& work) {
  std::string name = work.name();
  const TransformerShape& t = work.transformer();
  if (t.layers > 0) name += " L" + std::to_string(t.layers) + " H" + std::to_string(t.hidden);
  return name + " b" + std::to_string(work.global_batch());
}

void add_to_mix(const std::vector<Job>& jobs, const ReplayResult& result,
                std::map<std::string, DecisionMixRow>& mix) {
  for (size_t j = 0; j < jobs.size(); ++j) {
    const std::string kind = job_kind(*jobs[j].work);
    DecisionMixRow& row = mix[kind];
    row.policy = result.stats.policy, row.admission = result.stats.admission, row.job = kind;
    const JobOutcome& o = result.jobs[j];
    ++row.jobs;
    row.met += o.met;
    if (o.gpus == 0) continue;
    ++row.started;
    row.gpus += o.gpus;
    ++row.by_gpus[o.gpus];
  }
}

std::string mix_csv(const std::vector<DecisionMixRow>& mix) {
  std::ostringstream out;
  out << "job,admission,policy,jobs,started,met,mean_gpus,gpu_counts\n";
  for (const DecisionMixRow& r : mix) {
    out << sim::csv_field(r.job) << ',' << r.admission << ',' << sim::csv_field(r.policy) << ','
        << r.jobs << ',' << r.started << ',' << r.met << ','
        << sim::csv_number(r.started ? r.gpus / r.started : 0) << ',';
    std::string counts;
    for (const auto& [k, n] : r.by_gpus)
      counts += (counts.empty() ? "" : " ") + std::to_string(k) + ":" + std::to_string(n);
    out << sim::csv_field(counts) << '\n';
  }
  return out.str();
}

std::string runs_csv(const std::vector<Run>& runs) {
  std::ostringstream out;
  out << "policy,admission,seed,arrived,started,met,unservable";
  for (const Metric& m : metrics()) out << ',' << m.key;
  out << ",jct_mean\n";
  for (const Run& r : runs) {
    const ReplayStats& s = r.stats;
    out << sim::csv_field(s.policy) << ',' << s.admission << ',' << r.seed << ',' << s.arrived
        << ',' << s.started << ',' << s.met << ',' << s.unservable;
    for (const Metric& m : metrics()) out << ',' << sim::csv_number(s.*m.run);
    out << ',' << sim::csv_number(s.jct_mean) << '\n';
  }
  return out.str();
}

std::string summary_csv(const std::vector<GroupSummary>& groups) {
  std::ostringstream out;
  out << "policy,admission,seeds,arrived_mean";
  for (const Metric& m : metrics()) out << ',' << m.key << "_mean," << m.key << "_ci95";
  out << '\n';
  for (const GroupSummary& g : groups) {
    out << sim::csv_field(g.policy) << ',' << g.admission << ',' << g.seeds << ','
        << sim::csv_number(g.arrived);
    for (const Metric& m : metrics())
      out << ',' << sim::csv_number((g.*m.summary).mean) << ','
          << sim::csv_number((g.*m.summary).ci95);
    out << '\n';
  }
  return out.str();
}

// A bar per admission mode, grouped by policy.
sim::BarChart chart(const std::vector<GroupSummary>& groups, sim::Stat GroupSummary::*metric,
                    const std::string& name, const std::string& title, const std::string& ylabel) {
  sim::BarChart c{name, title, ylabel, {}, {}, {}};
  for (const GroupSummary& g : groups) {
    if (std::find(c.categories.begin(), c.categories.end(), g.policy) == c.categories.end())
      c.categories.push_back(g.policy);
    if (std::find(c.series.begin(), c.series.end(), g.admission) == c.series.end())
      c.series.push_back(g.admission);
  }
  c.values.assign(c.categories.size(),
                  std::vector<sim::Stat>(c.series.size(), sim::Stat{NAN, NAN, NAN}));
  for (const GroupSummary& g : groups) {
    const size_t row =
        std::find(c.categories.begin(), c.categories.end(), g.policy) - c.categories.begin();
    const size_t col = std::find(c.series.begin(), c.series.end(), g.admission) - c.series.begin();
    c.values[row][col] = g.*metric;
  }
  return c;
}

}  // namespace

std::shared_ptr<const PhysicalEstimator> fitted_estimator(const sim::ExperimentSpec& spec) {
  std::shared_ptr<const ThroughputTable> table;
  if (!spec.fitted.throughput_table.empty())
    table = std::make_shared<const ThroughputTable>(
        ThroughputTable::load_dir(spec.fitted.throughput_table));
  return std::make_shared<const PhysicalEstimator>(
      load_cluster(spec.fitted.cluster, spec.source + ": cluster"), PhysicalConstants::calibrated(),
      std::move(table));
}

Evaluation run_experiment(const sim::ExperimentSpec& spec,
                          std::shared_ptr<const PhysicalEstimator> estimator) {
  const auto start = std::chrono::steady_clock::now();
  const sim::FittedExperimentSpec& f = spec.fitted;
  const FittedWorkload workload = load_workload_named(f.params);
  DurationModel durations(estimator);
  Evaluation out;
  out.cluster = estimator->cluster().summary();
  // Each seed's jobs are drawn once and replayed under every (admission, policy).
  std::vector<std::vector<Job>> draws;
  sim::CorrectedPredictions corrected(durations);
  for (std::uint64_t seed : spec.seeds) {
    draws.push_back(generate_jobs(workload, f.load, f.jobs, seed, durations, f.beta_deadline));
    if (f.correction)
      sim::rescale_deadlines(draws.back(), corrected, *f.correction, durations.cluster_gpus());
  }
  ReplayConfig config;
  config.order = f.order;
  if (f.correction)  // the site's corrected step times: its world and what policies are told
    config.predicted = config.actual = sim::corrected_world(corrected, *f.correction);
  for (Admission admission : f.admissions)
    for (const std::string& policy : spec.policies) {
      config.admission = admission;
      config.policy = Policy::parse(policy, spec.source + ": policies", sim::model_search_dirs());
      std::map<std::string, DecisionMixRow> mix;
      for (size_t s = 0; s < spec.seeds.size(); ++s) {
        config.seed = spec.seeds[s];
        const ReplayResult result = replay_on_gpus(draws[s], durations, config);
        out.runs.push_back({spec.seeds[s], result.stats});
        add_to_mix(draws[s], result, mix);
      }
      for (auto& [job, row] : mix) out.mix.push_back(std::move(row));
    }
  out.groups = summarize_runs(out.runs);
  out.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

std::vector<GroupSummary> summarize_runs(const std::vector<Run>& runs) {
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::vector<const ReplayStats*>> by_group;
  for (const Run& r : runs) {
    const auto key = std::make_pair(r.stats.policy, r.stats.admission);
    if (!by_group.count(key)) order.push_back(key);
    by_group[key].push_back(&r.stats);
  }
  std::vector<GroupSummary> groups;
  for (const auto& key : order) {
    const std::vector<const ReplayStats*>& members = by_group[key];
    GroupSummary g;
    g.policy = key.first;
    g.admission = key.second;
    g.seeds = static_cast<int>(members.size());
    for (const ReplayStats* s : members) g.arrived += static_cast<double>(s->arrived);
    g.arrived /= static_cast<double>(members.size());
    for (const Metric& m : metrics()) {
      std::vector<double> values;
      for (const ReplayStats* s : members) values.push_back(s->*m.run);
      g.*m.summary = sim::summarize_values(values);
    }
    groups.push_back(g);
  }
  return groups;
}

nlohmann::json summary_to_json(const GroupSummary& g) {
  nlohmann::json j = {{"policy", g.policy},
                      {"admission", g.admission},
                      {"seeds", g.seeds},
                      {"arrived_mean", g.arrived}};
  for (const Metric& m : metrics()) {
    j[std::string(m.key) + "_mean"] = (g.*m.summary).mean;
    j[std::string(m.key) + "_ci95"] = (g.*m.summary).ci95;
  }
  return j;
}

std::string format_table(const std::vector<GroupSummary>& groups) {
  std::vector<std::vector<std::string>> rows = {{"policy", "admission", "deadlines met",
                                                 "unservable", "GPU-h/met", "utilisation",
                                                 "queue delay (h)", "GPUs/job"}};
  for (const GroupSummary& g : groups) {
    sim::Stat delay_hours = g.queue_delay;
    delay_hours.mean /= 3600, delay_hours.ci95 /= 3600;
    rows.push_back({g.policy, g.admission, sim::mean_ci(g.deadline_met_rate, 3),
                    sim::mean_ci(g.unservable_rate, 3), sim::mean_ci(g.gpu_hours_per_met, 2),
                    sim::mean_ci(g.utilisation, 3), sim::mean_ci(delay_hours, 2),
                    sim::mean_ci(g.mean_gpus, 2)});
  }
  return sim::format_table(rows);
}

std::string format_decision_mix(const std::vector<DecisionMixRow>& mix) {
  std::vector<const DecisionMixRow*> rows;
  for (const DecisionMixRow& r : mix) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const DecisionMixRow* a, const DecisionMixRow* b) {
    return std::tie(a->job, a->admission) < std::tie(b->job, b->admission);
  });
  std::vector<std::vector<std::string>> table = {{"job", "admission", "policy", "jobs",
                                                  "not started", "met", "GPUs/job",
                                                  "GPU counts (share of started)"}};
  for (const DecisionMixRow* r : rows) {
    const double jobs = static_cast<double>(std::max(1L, r->jobs));
    std::string counts;
    for (const auto& [k, n] : r->by_gpus)
      if (n * 20 >= r->started)  // counts of at least 5% of the started jobs
        counts += (counts.empty() ? "" : " ") + std::to_string(k) + ":" +
                  std::to_string(std::lround(100.0 * n / r->started)) + "%";
    table.push_back({r->job, r->admission, r->policy, std::to_string(r->jobs),
                     significant_number_text((r->jobs - r->started) / jobs, 3),
                     significant_number_text(r->met / jobs, 3),
                     significant_number_text(r->started ? r->gpus / r->started : 0, 3), counts});
  }
  return sim::format_table(table);
}

std::string describe_experiment(const sim::ExperimentSpec& spec, const std::string& cluster) {
  const sim::FittedExperimentSpec& f = spec.fitted;
  std::ostringstream out;
  out << spec.name << " (" << spec.source << "): " << f.jobs << " jobs per seed drawn from "
      << f.params << " at " << f.load << "x its arrival rate, deadlines "
      << (f.beta_deadline ? "from beta " + f.beta_deadline->label() : std::string("from slack"))
      << ", on " << cluster << "; " << spec.policies.size() << " policies x " << f.admissions.size()
      << " admission modes x " << spec.seeds.size() << " seeds";
  return out.str();
}

std::string write_outputs(const std::string& dir, const Evaluation& evaluation, bool plots) {
  sim::make_directories(dir);
  sim::write_text_file(dir + "/runs.csv", runs_csv(evaluation.runs));
  sim::write_text_file(dir + "/summary.csv", summary_csv(evaluation.groups));
  nlohmann::json summary = nlohmann::json::array();
  for (const GroupSummary& g : evaluation.groups) summary.push_back(summary_to_json(g));
  sim::write_text_file(dir + "/summary.json", summary.dump(2) + "\n");
  sim::write_text_file(dir + "/decision_mix.csv", mix_csv(evaluation.mix));
  std::string line = "wrote " + dir + "/runs.csv, summary.csv, summary.json, decision_mix.csv";
  if (!plots) return line;
  const std::vector<sim::BarChart> charts = {
      chart(evaluation.groups, &GroupSummary::deadline_met_rate, "deadline_met_rate",
            "Deadlines met (share of jobs, mean and 95% CI)", "deadline-met rate"),
      chart(evaluation.groups, &GroupSummary::gpu_hours_per_met, "gpu_hours_per_met",
            "GPU-hours per met deadline (mean and 95% CI)", "GPU-hours"),
      chart(evaluation.groups, &GroupSummary::queue_delay, "queue_delay",
            "Mean queueing delay of started jobs (mean and 95% CI)", "seconds")};
  return line + "\n" + sim::write_bar_charts(dir, "plots.gp", charts);
}

}  // namespace pacml::gpu
