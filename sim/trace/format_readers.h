// One reader per trace format (read_trace in trace_readers.cpp picks one).
// Each returns the records of `in` and counts its lines in `report`; a bad
// line throws InputError naming file:line, or with skip_bad is counted.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "sim/trace/trace.h"

namespace pacml::sim::trace_reading {

// elasticflow_reader.cpp
std::vector<TraceRecord> read_elasticflow(std::istream& in, const std::string& source,
                                          const TraceReadOptions& options, TraceReport& report);
// swf_reader.cpp
std::vector<TraceRecord> read_swf(std::istream& in, const std::string& source,
                                  const TraceReadOptions& options, TraceReport& report);
// sacct_reader.cpp: sacct --parsable2 with a header line
std::vector<TraceRecord> read_sacct(std::istream& in, const std::string& source,
                                    const TraceReadOptions& options, TraceReport& report);
// slurm_json_readers.cpp
std::vector<TraceRecord> read_sacct_json(std::istream& in, const std::string& source,
                                         const TraceReadOptions& options, TraceReport& report);
std::vector<TraceRecord> read_squeue_json(std::istream& in, const std::string& source,
                                          const TraceReadOptions& options, TraceReport& report);
std::vector<TraceRecord> read_pacml_log(std::istream& in, const std::string& source,
                                        const TraceReadOptions& options, TraceReport& report);

}  // namespace pacml::sim::trace_reading
