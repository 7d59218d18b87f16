#include "sim/report/csv.h"
#include "core/util/numbers.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <variant>

#include "core/util/error.h"
#include "sim/engine/episode_fields.h"

namespace pacml::sim {

std::string csv_number(double value) {
  return significant_number_text(value, 10);
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void write_episodes_csv_header(std::ostream& out) {
  const char* separator = "";
  for (const EpisodeField& field : episode_fields())
    if (field.in_csv) {
      out << separator << field.name;
      separator = ",";
    }
  out << '\n';
}

namespace {

void write_csv_value(std::ostream& out, const std::string& text) {
  out << csv_field(text);
}
void write_csv_value(std::ostream& out, double value) {
  out << csv_number(value);
}
void write_csv_value(std::ostream& out, long value) {
  out << value;
}
void write_csv_value(std::ostream& out, std::uint64_t value) {
  out << value;
}

}  // namespace

void write_episode_csv_row(std::ostream& out, const EpisodeStats& s) {
  const char* separator = "";
  for (const EpisodeField& field : episode_fields())
    if (field.in_csv) {
      out << separator;
      std::visit([&](auto member) { write_csv_value(out, s.*member); }, field.member);
      separator = ",";
    }
  out << '\n';
}

void write_jobs_csv_header(std::ostream& out) {
  out << "policy,beta_dist,seed,index,id,model,arrival,beta,steps,action,outcome,degree,servers,"
         "start,end,jct,"
         "jct_max,jct_seq,speedup,comm_time,comp_time,done_fraction,demand,source\n";
}

void write_jobs_csv_rows(std::ostream& out, const EpisodeStats& e,
                         const std::vector<JobRecord>& jobs) {
  const std::string prefix =
      csv_field(e.policy) + ',' + csv_field(e.beta_dist) + ',' + std::to_string(e.seed) + ',';
  for (const JobRecord& r : jobs) {
    const bool ran =
        r.outcome == JobOutcome::kCompleted || r.outcome == JobOutcome::kRunningAtHorizon;
    out << prefix << r.index << ',' << csv_field(r.id) << ',' << csv_field(r.model) << ','
        << csv_number(r.arrival) << ',' << csv_number(r.beta) << ',' << r.steps << ',' << r.action
        << ',' << job_outcome_name(r.outcome) << ',' << r.degree << ',' << r.servers << ','
        << (ran ? csv_number(r.start) : "") << ',' << (ran ? csv_number(r.end) : "") << ','
        << csv_number(r.jct) << ',' << csv_number(r.jct_max) << ',' << csv_number(r.jct_seq) << ','
        << csv_number(r.speedup) << ',' << csv_number(r.comm_time) << ',' << csv_number(r.comp_time)
        << ',' << csv_number(r.done_fraction) << ',' << csv_number(r.demand) << ','
        << csv_field(r.source) << '\n';
  }
}

void write_timeline_csv_header(std::ostream& out) {
  out << "policy,beta_dist,seed,time,occupied,running\n";
}

void write_timeline_csv_rows(std::ostream& out, const EpisodeStats& e,
                             const std::vector<OccupancySample>& timeline) {
  const std::string prefix =
      csv_field(e.policy) + ',' + csv_field(e.beta_dist) + ',' + std::to_string(e.seed) + ',';
  for (const OccupancySample& s : timeline)
    out << prefix << csv_number(s.time) << ',' << s.occupied << ',' << s.running << '\n';
}

void write_bounds_csv(std::ostream& out, const std::vector<EpisodeBound>& bounds) {
  out << "beta_dist,seed,arrived,unservable,rate\n";
  for (const EpisodeBound& b : bounds)
    out << csv_field(b.beta_dist) << ',' << b.seed << ',' << b.arrived << ',' << b.unservable << ','
        << csv_number(b.rate()) << '\n';
}

void write_summary_csv(std::ostream& out, const std::vector<GroupSummary>& groups) {
  out << "policy,beta_dist,seeds,arrived_mean,blocking_rate_mean,blocking_rate_ci95,acceptance_"
         "rate_mean,"
         "throughput_mean,throughput_ci95,mean_jct_mean,mean_speedup_mean,mean_occupancy_mean,mean_"
         "servers_mean,"
         "blocked_declined_rate,blocked_no_placement_rate,blocked_deadline_rate,blocked_running_at_"
         "horizon_rate\n";
  for (const GroupSummary& g : groups)
    out << csv_field(g.policy) << ',' << csv_field(g.beta_dist) << ',' << g.seeds << ','
        << csv_number(g.arrived) << ',' << csv_number(g.blocking_rate.mean) << ','
        << csv_number(g.blocking_rate.ci95) << ',' << csv_number(g.acceptance_rate.mean) << ','
        << csv_number(g.throughput.mean) << ',' << csv_number(g.throughput.ci95) << ','
        << csv_number(g.mean_jct.mean) << ',' << csv_number(g.mean_speedup.mean) << ','
        << csv_number(g.mean_occupancy.mean) << ',' << csv_number(g.mean_servers.mean) << ','
        << csv_number(g.declined.mean) << ',' << csv_number(g.no_placement.mean) << ','
        << csv_number(g.deadline.mean) << ',' << csv_number(g.running_at_horizon.mean) << '\n';
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InputError(path, "cannot write the file");
  out << text;
  if (!out) throw InputError(path, "writing the file failed");
}

}  // namespace pacml::sim
