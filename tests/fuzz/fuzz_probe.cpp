// Probe CSV (contrib/probe/pacml-probe's output): sim/calibration/probe_file.h.
// A file that parses has only measured rows with positive times and rates.
#include <sstream>
#include <stdexcept>

#include "sim/calibration/probe_file.h"
#include "tests/fuzz/fuzz_target.h"

static void fuzz_probe(const std::string& input) {
  std::istringstream in(input);
  const pacml::sim::ProbeRun run = pacml::sim::read_probe(in, "fuzz.probe.csv");
  for (const pacml::sim::ProbeRow& row : run.rows) {
    if (row.status != pacml::sim::ProbeStatus::kOk) continue;
    if (!(row.seconds > 0)) throw std::logic_error("accepted a measured row without a time");
    const bool has_rate =
        row.kind == pacml::sim::ProbeKind::kMatmul || row.kind == pacml::sim::ProbeKind::kCopy;
    if (has_rate && !(row.rate > 0)) throw std::logic_error("accepted a rate that is not positive");
  }
}
PACML_FUZZ_TARGET("probe", fuzz_probe);
