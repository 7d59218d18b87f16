// Running an experiment's grid (or a shard of it) and writing its outputs:
// the driver behind `pacml evaluate`, `pacml replay` and `--merge`.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/experiment/experiment.h"
#include "sim/experiment/summary.h"
#include "sim/report/plots.h"

namespace pacml::sim {

struct EvaluationOptions {
  int threads = 0;    // 0 = the experiment's, else all cores
  int progress = -1;  // progress bar: -1 auto (TTY), 0 off, 1 on
  bool keep_plot_data = true;
  std::ostream* jobs_csv = nullptr;      // per-job rows (header written here)
  std::ostream* timeline_csv = nullptr;  // occupancy rows (header written here)
};

struct Evaluation {
  std::vector<GridCell> cells;
  std::vector<EpisodeStats> episodes;  // cell order
  PlotData plot;
  double wall_seconds = 0;
};

// The threads an evaluation runs on: the option's, else the experiment's, else all cores.
int evaluation_threads(const Experiment& experiment, const EvaluationOptions& options);

Evaluation run_evaluation(const Experiment& experiment, const std::vector<GridCell>& cells,
                          const EvaluationOptions& options);

// Writes episodes.csv, summary.csv, summary.json (and the plots when plot data
// has any episodes) into `dir` (created if needed). Returns lines for people.
std::string write_evaluation_outputs(const std::string& dir,
                                     const std::vector<EpisodeStats>& episodes,
                                     const PlotData* plot);

// Shards: a self-describing JSON document of one slice's episodes.
nlohmann::json shard_to_json(const Experiment& experiment, int shard, int shards,
                             const Evaluation& evaluation);
struct MergedShards {
  std::string experiment;
  std::string time_unit;               // of the profile the shards ran with
  std::vector<EpisodeStats> episodes;  // grid order
  size_t grid_size = 0;
  std::vector<size_t> missing;  // cells no file provided
};
// Throws InputError(file, ...) for unreadable files, other experiments,
// different grids or a cell given twice.
MergedShards merge_shard_files(const std::vector<std::string>& paths);

// "2/8" → {2, 8}; throws InputError(where, ...) unless 0 ≤ I < N.
std::pair<int, int> parse_shard(const std::string& text, const std::string& where);

// mkdir -p; throws InputError(path, ...).
void make_directories(const std::string& path);

}  // namespace pacml::sim
