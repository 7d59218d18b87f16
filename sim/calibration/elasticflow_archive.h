// Finding and reading ElasticFlow's traces for calibration and table
// extraction: the published archive (elasticflow-traces.tar.gz), a directory
// of its cluster CSVs, or one CSV.
#pragma once

#include <string>
#include <vector>

#include "sim/trace/trace.h"

namespace pacml::sim {

struct ElasticFlowTraces {
  bool found = false;
  std::string path;  // what was read
  std::string note;  // for people: what was read, or where it was looked for
  std::vector<TraceRecord> records;
};

// `path` empty: the shared data set ($PACML_SHARED_DATA, else ../shared/data
// from the working directory or a parent), and when it is absent the result
// says so plainly (found = false). A path given but unreadable is an
// InputError. Bad lines are skipped and counted (the note says how many).
ElasticFlowTraces find_elasticflow_traces(const std::string& path);

// Reads one CSV, a directory of *.csv (or one holding
// elasticflow-traces.tar.gz), or a .tar.gz of CSVs.
std::vector<TraceRecord> read_elasticflow_traces(const std::string& path, long* skipped);

}  // namespace pacml::sim
