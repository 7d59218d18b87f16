// `pacml throughput extract` — measured scaling tables from ElasticFlow
// traces (doc/PHYSICAL.md §8): per (model, global batch, GPUs) the median
// per-iteration time duration / num_iteration, written as ElasticFlow's
// MODEL.csv tables that --throughput-table reads.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <tuple>

#include "core/parallel/throughput_table.h"
#include "core/util/args.h"
#include "core/util/error.h"
#include "core/util/statistics.h"
#include "sim/calibration/elasticflow_archive.h"
#include "sim/cli/command.h"
#include "sim/experiment/evaluation.h"

namespace pacml::cli {
namespace {

// Every (model, batch, GPUs) the traces ran, as the median iterations/s.
std::map<std::string, ThroughputTable> tables_from(const std::vector<sim::TraceRecord>& records) {
  std::map<std::tuple<std::string, int, int>, std::vector<double>> times;
  for (const sim::TraceRecord& r : records)
    if (!r.model.empty() && r.batch > 0 && r.iterations > 0 && r.duration > 0)
      times[{r.model, r.batch, r.gpus}].push_back(r.duration / r.iterations);
  std::map<std::string, ThroughputTable> tables;
  for (const auto& [key, values] : times) {
    const auto& [model, batch, gpus] = key;
    tables[model].set(model, batch, gpus, 1.0 / median(values));
  }
  return tables;
}

// Points a complete table cannot hold (a GPU count some batch lacks).
long dropped_points(const ThroughputTable& table, const std::string& model) {
  long total = 0;
  for (const auto& [batch, row] : *table.find(model)) total += static_cast<long>(row.size());
  const auto* batches = table.find(model);
  return total - static_cast<long>(table.complete_gpu_counts(model).size() * batches->size());
}

int extract(const std::vector<std::string>& argv) {
  Args args("pacml throughput extract TRACE... --out DIR",
            "Writes measured scaling tables (one MODEL.csv per model: global_batch_size,\n"
            "then iterations/s per GPU count) from ElasticFlow traces: CSV files,\n"
            "directories of them, or elasticflow-traces.tar.gz. Each cell is the median of\n"
            "1 / (duration / num_iteration) over the jobs with that model, batch and GPUs.");
  std::vector<std::string> traces;
  std::optional<std::string> out;
  args.bind_positionals("TRACE", "ElasticFlow trace(s): .csv, a directory, or .tar.gz", traces);
  args.bind("out", "DIR", "where to write MODEL.csv files (required)", out);
  if (!args.parse(argv)) return 0;
  if (!out) throw InputError("--out", "give the directory to write the tables to");
  std::vector<sim::TraceRecord> records;
  long skipped = 0;
  for (const std::string& path : traces)
    for (sim::TraceRecord& r : sim::read_elasticflow_traces(path, &skipped))
      records.push_back(std::move(r));
  const auto tables = tables_from(records);
  if (tables.empty()) throw InputError("TRACE", "no job with a model, batch and iterations");
  const std::string dir = *out;
  sim::make_directories(dir);
  for (const auto& [model, table] : tables) {
    const std::string path = dir + "/" + model + ".csv";
    std::ofstream out(path);
    if (!out) throw InputError(path, "cannot write the table");
    table.write_csv(out, model);
    const long dropped = dropped_points(table, model);
    std::cout << path << ": " << table.find(model)->size() << " batches, GPU counts";
    for (int g : table.complete_gpu_counts(model)) std::cout << " " << g;
    if (dropped)
      std::cout << " (" << dropped << " points left out: GPU counts not every batch has)";
    std::cout << "\n";
  }
  std::cout << records.size() << " jobs read";
  if (skipped) std::cout << ", " << skipped << " bad lines skipped";
  std::cout << "\n";
  return 0;
}

int throughput_command(const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0] == "--help" || argv[0] == "-h") {
    std::cout << "usage: pacml throughput extract TRACE... --out DIR\n\n"
                 "Measured scaling tables for --throughput-table. 'pacml throughput extract "
                 "--help' for details.\n";
    return argv.empty() ? 2 : 0;
  }
  if (argv[0] != "extract")
    throw InputError("pacml throughput", "unknown subcommand '" + argv[0] + "'; known: extract");
  return extract(std::vector<std::string>(argv.begin() + 1, argv.end()));
}

}  // namespace

PACML_COMMAND("throughput", "extract measured scaling tables from ElasticFlow traces",
              throughput_command);

}  // namespace pacml::cli
