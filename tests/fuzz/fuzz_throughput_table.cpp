// Throughput table CSV: core/parallel/throughput_table.h. A table that parses
// holds only positive, finite throughputs, and writing it back parses again.
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "core/parallel/throughput_table.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_throughput_table(const std::string& input) {
  pacml::ThroughputTable table;
  std::istringstream in(input);
  table.add_csv(in, "resnet50", "fuzz-table.csv");
  const auto* batches = table.find("resnet50");
  if (!batches) return;
  for (const auto& [batch, row] : *batches)
    for (const auto& [gpus, value] : row)
      if (!(value > 0) || !std::isfinite(value) || batch < 1 || gpus < 1)
        throw std::logic_error("accepted a cell that is not a positive throughput");
  std::ostringstream out;
  table.write_csv(out, "resnet50");
  pacml::ThroughputTable again;
  std::istringstream back(out.str());
  if (!table.complete_gpu_counts("resnet50").empty()) again.add_csv(back, "resnet50", "rewritten");
}
PACML_FUZZ_TARGET("throughput_table", fuzz_throughput_table);
