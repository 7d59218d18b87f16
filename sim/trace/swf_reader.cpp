// The Standard Workload Format: 18 blank-separated numbers per job, ';'
// comments.
#include <algorithm>
#include <array>
#include <cmath>

#include "core/util/numbers.h"
#include "sim/trace/format_readers.h"
#include "sim/trace/trace_lines.h"

namespace pacml::sim::trace_reading {

std::vector<TraceRecord> read_swf(std::istream& in, const std::string& source,
                                  const TraceReadOptions& options, TraceReport& report) {
  std::vector<TraceRecord> out;
  for_each_line(in, source, options, report, [&](const std::string& line, long number) {
    const std::string t(trim(line));
    if (t.empty() || t[0] == ';') return;
    ++report.lines;
    const std::vector<std::string> f = split_blanks(t);
    if (f.size() != 18)
      throw BadLine{"wrong field count",
                    "an SWF line has 18 fields, this one has " + std::to_string(f.size())};
    std::array<double, 18> v{};
    for (int i = 0; i < 18; ++i) {
      try {
        v[i] = parse_finite_double(f[i], "", "field");
      } catch (const InputError&) {
        throw BadLine{"malformed field",
                      "SWF field " + std::to_string(i + 1) + " '" + f[i] + "' is not a number"};
      }
    }
    TraceRecord r;
    r.source = file_line(source, number);
    r.id = f[0];
    if (v[1] < 0) throw BadLine{"negative submit time", "submit time (field 2) is negative"};
    r.submit = v[1];
    if (v[3] >= 0) r.duration = v[3];
    const double procs = v[4] > 0 ? v[4] : v[7];
    if (!(procs > 0))
      throw BadLine{"no processor count",
                    "neither allocated (field 5) nor requested processors (field 8) is positive"};
    r.gpus = static_cast<int>(std::clamp(std::ceil(procs), 1.0, 1e6));
    if (v[8] > 0) r.time_limit = v[8];
    if (v[13] >= 0) r.executable = f[13];
    out.push_back(std::move(r));
  });
  return out;
}

}  // namespace pacml::sim::trace_reading
