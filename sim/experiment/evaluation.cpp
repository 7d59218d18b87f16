#include "sim/experiment/evaluation.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/util/error.h"
#include "core/util/numbers.h"
#include "sim/report/csv.h"
#include "sim/report/progress.h"

namespace pacml::sim {

void make_directories(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) throw InputError(path, "cannot create the directory: " + ec.message());
}

std::pair<int, int> parse_shard(const std::string& text, const std::string& where) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos)
    throw InputError(where, "expected I/N (e.g. 0/4), got '" + text + "'");
  const long n = parse_integer(text.substr(slash + 1), 1, 1000000, where, "number of shards");
  const long i = parse_integer(text.substr(0, slash), 0, n - 1, where, "shard index (0-based)");
  return {static_cast<int>(i), static_cast<int>(n)};
}

int evaluation_threads(const Experiment& experiment, const EvaluationOptions& options) {
  if (options.threads > 0) return options.threads;
  return experiment.spec().threads > 0 ? experiment.spec().threads : default_threads();
}

Evaluation run_evaluation(const Experiment& experiment, const std::vector<GridCell>& cells,
                          const EvaluationOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  Evaluation out;
  out.cells = cells;
  const bool want_jobs = options.jobs_csv || options.keep_plot_data;
  std::vector<EpisodeTask> tasks;
  for (const GridCell& cell : cells) tasks.push_back(experiment.task(cell, want_jobs, true));
  const int threads = evaluation_threads(experiment, options);
  ProgressBar bar("episodes", tasks.size(), options.progress);
  std::vector<EpisodeResult> results =
      run_episodes(tasks, threads, [&](size_t done, size_t) { bar.update(done); });
  bar.finish();
  if (options.jobs_csv) write_jobs_csv_header(*options.jobs_csv);
  if (options.timeline_csv) write_timeline_csv_header(*options.timeline_csv);
  out.plot.servers = experiment.estimator()->topology().num_servers();
  out.plot.time_unit = experiment.estimator()->profile().time_unit;
  out.plot.title = experiment.spec().name;
  for (EpisodeResult& r : results) {
    const GroupKey key{r.stats.policy, r.stats.beta_dist};
    if (options.jobs_csv) write_jobs_csv_rows(*options.jobs_csv, r.stats, r.jobs);
    if (options.keep_plot_data) {
      if (!out.plot.occupancy.count(key)) {
        out.plot.occupancy[key] = r.timeline;
        if (options.timeline_csv)
          write_timeline_csv_rows(*options.timeline_csv, r.stats, r.timeline);
      }
      auto& jcts = out.plot.jcts[key];
      for (const JobRecord& j : r.jobs)
        if (j.outcome == JobOutcome::kCompleted || j.outcome == JobOutcome::kRunningAtHorizon)
          jcts.push_back(j.jct);
    }
    out.episodes.push_back(r.stats);
  }
  out.plot.groups = summarize(out.episodes);
  out.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

std::string write_evaluation_outputs(const std::string& dir,
                                     const std::vector<EpisodeStats>& episodes,
                                     const PlotData* plot) {
  make_directories(dir);
  std::ostringstream e, s;
  write_episodes_csv_header(e);
  for (const EpisodeStats& ep : episodes) write_episode_csv_row(e, ep);
  write_text_file(dir + "/episodes.csv", e.str());
  const std::vector<GroupSummary> groups = summarize(episodes);
  write_summary_csv(s, groups);
  write_text_file(dir + "/summary.csv", s.str());
  nlohmann::json j = nlohmann::json::array();
  for (const GroupSummary& g : groups) j.push_back(summary_to_json(g));
  write_text_file(dir + "/summary.json", j.dump(2) + "\n");
  std::string message =
      "wrote " + dir + "/episodes.csv, " + dir + "/summary.csv, " + dir + "/summary.json";
  if (plot && !plot->groups.empty()) message += "\n" + write_plots(dir, *plot);
  return message;
}

nlohmann::json shard_to_json(const Experiment& experiment, int shard, int shards,
                             const Evaluation& evaluation) {
  nlohmann::json j;
  j["pacml_shard"] = 1;
  j["experiment"] = experiment.spec().name;
  j["source"] = experiment.spec().source;
  j["shard"] = shard;
  j["shards"] = shards;
  j["grid_size"] = experiment.grid().size();
  j["time_unit"] = experiment.estimator()->profile().time_unit;
  j["episodes"] = nlohmann::json::array();
  for (size_t i = 0; i < evaluation.episodes.size(); ++i) {
    nlohmann::json e = episode_to_json(evaluation.episodes[i]);
    e["cell"] = evaluation.cells[i].index;
    j["episodes"].push_back(std::move(e));
  }
  return j;
}

MergedShards merge_shard_files(const std::vector<std::string>& paths) {
  if (paths.empty()) throw InputError("--merge", "no shard files given");
  MergedShards merged;
  std::map<size_t, EpisodeStats> cells;
  bool first = true;
  for (const std::string& path : paths) {
    std::ifstream in(path);
    if (!in) throw InputError(path, "cannot read the shard file");
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw InputError(path, std::string("not valid JSON: ") + e.what());
    }
    if (!j.is_object() || !j.contains("pacml_shard") || !j.contains("episodes") ||
        !j["episodes"].is_array())
      throw InputError(path,
                       "not a pacml evaluate shard (made with 'pacml evaluate ... --shard I/N')");
    const std::string name = j.value("experiment", "");
    const size_t grid = j.value("grid_size", static_cast<size_t>(0));
    if (first) {
      merged.experiment = name;
      merged.grid_size = grid;
      merged.time_unit = j.value("time_unit", "");
      first = false;
    } else if (name != merged.experiment || grid != merged.grid_size) {
      throw InputError(path, "shard of another experiment or grid ('" + name + "', " +
                                 std::to_string(grid) + " cells; expected '" + merged.experiment +
                                 "', " + std::to_string(merged.grid_size) + ")");
    }
    const auto& episodes = j["episodes"];
    for (size_t i = 0; i < episodes.size(); ++i) {
      const std::string where = path + ": episodes[" + std::to_string(i) + "]";
      if (!episodes[i].contains("cell") || !episodes[i]["cell"].is_number_unsigned())
        throw InputError(where, "episode without a grid cell index");
      const size_t cell = episodes[i]["cell"].get<size_t>();
      if (cell >= merged.grid_size) throw InputError(where, "cell index beyond the grid");
      if (cells.count(cell))
        throw InputError(where, "grid cell " + std::to_string(cell) + " appears twice");
      cells[cell] = episode_from_json(episodes[i], where);
    }
  }
  for (size_t c = 0; c < merged.grid_size; ++c) {
    auto it = cells.find(c);
    if (it == cells.end())
      merged.missing.push_back(c);
    else
      merged.episodes.push_back(it->second);
  }
  return merged;
}

}  // namespace pacml::sim
