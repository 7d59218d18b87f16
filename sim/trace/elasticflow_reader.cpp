// ElasticFlow's CSV traces: a header naming some of the known columns, then
// one job per line.
#include <algorithm>

#include "core/util/numbers.h"
#include "core/util/text.h"
#include "sim/trace/format_readers.h"
#include "sim/trace/trace_lines.h"

namespace pacml::sim::trace_reading {

std::vector<TraceRecord> read_elasticflow(std::istream& in, const std::string& source,
                                          const TraceReadOptions& options, TraceReport& report) {
  static const std::vector<std::string> known = {"job_id",     "submission_time", "num_iteration",
                                                 "model_name", "deadline",        "batch_size",
                                                 "num_gpu",    "duration"};
  std::vector<TraceRecord> out;
  std::map<std::string, int> col;
  const auto on_header = [&](const std::vector<std::string>& names, const std::string& where) {
    col = read_header(names, known, {"submission_time"}, where,
                      "ElasticFlow columns: " + join(known));
  };
  const auto on_row = [&](const std::vector<std::string>& f, const std::string& where,
                          long number) {
    auto get = [&](const char* name) -> const std::string* {
      auto it = col.find(name);
      return it == col.end() ? nullptr : &f[it->second];
    };
    TraceRecord r;
    r.source = where;
    r.id = get("job_id") ? std::string(trim(*get("job_id"))) : std::to_string(number);
    r.submit = non_negative(*get("submission_time"), "submission_time");
    if (auto* v = get("num_iteration")) r.iterations = non_negative_integer(*v, "num_iteration");
    if (auto* v = get("model_name")) r.model = std::string(trim(*v));
    if (auto* v = get("deadline")) {
      r.deadline = non_negative(*v, "deadline");
      if (r.deadline <= r.submit)
        throw BadLine{"deadline before submission",
                      "deadline " + std::string(trim(*v)) + " is not after the submission time"};
    }
    if (auto* v = get("num_gpu")) {
      const long g = non_negative_integer(*v, "num_gpu");
      if (g < 1) throw BadLine{"no workers", "num_gpu must be at least 1"};
      r.gpus = static_cast<int>(std::min<long>(g, 1 << 20));
    }
    if (auto* v = get("duration")) r.duration = non_negative(*v, "duration");
    if (auto* v = get("batch_size")) {
      const long b = non_negative_integer(*v, "batch_size");
      if (b < 1) throw BadLine{"no batch", "batch_size must be at least 1"};
      r.batch = static_cast<int>(std::min<long>(b, 1 << 24));
    }
    if (r.iterations == 0) throw BadLine{"zero iterations", "num_iteration is 0"};
    out.push_back(std::move(r));
  };
  for_each_row(in, source, options, report, ',', "comma", "trace", on_header, on_row);
  return out;
}

}  // namespace pacml::sim::trace_reading
