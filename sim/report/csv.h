// CSV output of simulation results. Numbers are printed with %.10g, so the
// same configuration and seed give byte-identical files.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/engine/environment.h"
#include "sim/experiment/blocking_bound.h"
#include "sim/experiment/summary.h"

namespace pacml::sim {

std::string csv_number(double value);
// Quotes a field when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& text);

void write_episodes_csv_header(std::ostream& out);
void write_episode_csv_row(std::ostream& out, const EpisodeStats& s);
void write_jobs_csv_header(std::ostream& out);
// One row per job: the episode's policy, β distribution and seed first.
void write_jobs_csv_rows(std::ostream& out, const EpisodeStats& episode,
                         const std::vector<JobRecord>& jobs);
void write_timeline_csv_header(std::ostream& out);
void write_timeline_csv_rows(std::ostream& out, const EpisodeStats& episode,
                             const std::vector<OccupancySample>& timeline);
// bounds.csv: one row per (β distribution, seed).
void write_bounds_csv(std::ostream& out, const std::vector<EpisodeBound>& bounds);
void write_summary_csv(std::ostream& out, const std::vector<GroupSummary>& groups);

// Writes `text` to `path`; throws InputError(path, ...) if it cannot.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace pacml::sim
