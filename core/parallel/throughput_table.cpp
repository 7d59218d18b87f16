#include "core/parallel/throughput_table.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/text.h"
#include "core/zoo/model_zoo.h"

namespace pacml {
namespace {

// A row's cells, each trimmed; an empty one kept ("8,,": 8, "", "").
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> cells = split_fields(line, ',');
  for (std::string& cell : cells) cell = std::string(trim(cell));
  return cells;
}

// The zoo's canonical name, or the name itself for models the zoo lacks.
std::string canonical(const std::string& model) {
  return is_zoo_model(model) ? zoo_model_info(model).name : model;
}

constexpr long kMaxGpus = 1 << 20;
constexpr long kMaxBatch = 1 << 24;

}  // namespace

ThroughputTable ThroughputTable::load_dir(const std::string& dir) {
  std::unique_ptr<DIR, int (*)(DIR*)> handle(opendir(dir.c_str()), closedir);
  if (!handle) throw InputError(dir, "cannot read the throughput table directory");
  std::vector<std::string> files;
  while (const dirent* entry = readdir(handle.get())) {
    const std::string name = entry->d_name;
    if (name.size() > 4 && ends_with(name, ".csv")) files.push_back(name);
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw InputError(dir, "no MODEL.csv files in the throughput table directory");
  ThroughputTable table;
  for (const std::string& name : files) {
    const std::string path = dir + "/" + name;
    std::ifstream in(path);
    if (!in) throw InputError(path, "cannot read the throughput table");
    table.add_csv(in, name.substr(0, name.size() - 4), path);
  }
  return table;
}

void ThroughputTable::add_csv(std::istream& in, const std::string& model,
                              const std::string& source) {
  std::string line;
  long number = 0;
  std::vector<int> gpus;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    const std::string where = file_line(source, number);
    const std::vector<std::string> cells = split_csv(line);
    if (gpus.empty()) {
      if (cells.size() < 2 || cells[0] != "global_batch_size")
        throw InputError(where, "expected the header 'global_batch_size,1,2,4,...'");
      std::set<int> seen;
      for (size_t i = 1; i < cells.size(); ++i) {
        gpus.push_back(static_cast<int>(parse_integer(cells[i], 1, kMaxGpus, where, "GPU count")));
        if (!seen.insert(gpus.back()).second)
          throw InputError(where, "GPU count " + cells[i] + " appears twice in the header");
      }
      continue;
    }
    if (cells.size() != gpus.size() + 1)
      throw InputError(where, "expected " + std::to_string(gpus.size() + 1) + " cells, got " +
                                  std::to_string(cells.size()) + " (a hole in the table?)");
    const int batch =
        static_cast<int>(parse_integer(cells[0], 1, kMaxBatch, where, "global batch size"));
    for (size_t i = 0; i < gpus.size(); ++i) {
      if (cells[i + 1].empty())
        throw InputError(where, "no throughput for " + std::to_string(gpus[i]) + " GPUs (a hole)");
      const double value = parse_finite_double(cells[i + 1], where, "iterations per second");
      if (value <= 0)
        throw InputError(where, "iterations per second must be positive, got " + cells[i + 1]);
      set(model, batch, gpus[i], value);
    }
  }
  if (gpus.empty()) throw InputError(source, "empty throughput table");
}

void ThroughputTable::set(const std::string& model, int global_batch, int gpus,
                          double iterations_per_second) {
  points_[canonical(model)][global_batch][gpus] = iterations_per_second;
}

const std::map<int, std::map<int, double>>* ThroughputTable::find(const std::string& model) const {
  auto it = points_.find(canonical(model));
  return it == points_.end() ? nullptr : &it->second;
}

std::optional<double> ThroughputTable::step_time(const std::string& model, int global_batch,
                                                 int gpus) const {
  const auto* batches = find(model);
  if (!batches) return std::nullopt;
  auto b = batches->find(global_batch);
  if (b == batches->end()) return std::nullopt;
  auto g = b->second.find(gpus);
  if (g == b->second.end()) return std::nullopt;
  return 1.0 / g->second;
}

std::vector<std::string> ThroughputTable::models() const {
  std::vector<std::string> names;
  for (const auto& [name, batches] : points_) names.push_back(name);
  return names;
}

std::vector<int> ThroughputTable::complete_gpu_counts(const std::string& model) const {
  const auto* batches = find(model);
  if (!batches || batches->empty()) return {};
  std::vector<int> counts;
  for (const auto& [gpus, value] : batches->begin()->second) {
    bool everywhere = true;
    for (const auto& [batch, row] : *batches) everywhere = everywhere && row.count(gpus);
    if (everywhere) counts.push_back(gpus);
  }
  return counts;
}

void ThroughputTable::write_csv(std::ostream& out, const std::string& model) const {
  const std::vector<int> counts = complete_gpu_counts(model);
  out << "global_batch_size";
  for (int g : counts) out << "," << g;
  out << "\n";
  out.precision(10);
  for (const auto& [batch, row] : *find(model)) {
    out << batch;
    for (int g : counts) out << "," << row.at(g);
    out << "\n";
  }
}

}  // namespace pacml
