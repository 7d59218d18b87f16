// What every line-based trace reader shares: a bad line's reason and
// message, numbers that must not be negative, the loop over lines that
// throws or counts bad ones, and the check of a header's column names.
#pragma once

#include <istream>
#include <map>
#include <string>
#include <vector>

#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/text.h"
#include "sim/trace/trace.h"

namespace pacml::sim::trace_reading {

// A bad line: thrown (strict) or counted (skip_bad).
struct BadLine {
  std::string reason, message;
};

std::vector<std::string> split_blanks(const std::string& line);
// "a, b, c"
std::string join(const std::vector<std::string>& items);

// A number ≥ 0, else BadLine naming `what`.
double non_negative(const std::string& text, const std::string& what);
// An integer ≥ 0, else BadLine naming `what`.
long non_negative_integer(const std::string& text, const std::string& what);

// Calls fn(line, number) for every line (a trailing '\r' removed); a BadLine
// it throws becomes an InputError naming file:line, or with skip_bad a skip
// counted in `report`.
template <typename LineFn>
void for_each_line(std::istream& in, const std::string& source, const TraceReadOptions& options,
                   TraceReport& report, LineFn fn) {
  std::string line;
  long number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    try {
      fn(line, number);
    } catch (const BadLine& bad) {
      if (!options.skip_bad) throw InputError(file_line(source, number), bad.message);
      report.skip(bad.reason);
    }
  }
}

// A file of `sep`-separated fields under a header line: on_header(names,
// where) for the first line that is not blank, then on_row(fields, where,
// number) for each later one, counted in report.lines, its field count
// checked against the header's (`sep_name`: "comma", "'|'"). Throws
// InputError("empty " + what + " (no header line)") when there is none.
template <typename OnHeader, typename OnRow>
void for_each_row(std::istream& in, const std::string& source, const TraceReadOptions& options,
                  TraceReport& report, char sep, const std::string& sep_name,
                  const std::string& what, OnHeader on_header, OnRow on_row) {
  size_t columns = 0;
  for_each_line(in, source, options, report, [&](const std::string& line, long number) {
    if (trim(line).empty()) return;
    const std::string where = file_line(source, number);
    std::vector<std::string> fields = split_fields(line, sep);
    if (columns == 0) {
      on_header(fields, where);
      columns = fields.size();
      return;
    }
    ++report.lines;
    if (fields.size() != columns)
      throw BadLine{"wrong field count", "expected " + std::to_string(columns) + " " + sep_name +
                                             "-separated fields, got " +
                                             std::to_string(fields.size())};
    on_row(fields, where, number);
  });
  if (columns == 0) throw InputError(source, "empty " + what + " (no header line)");
}

// Maps the column names of a header line to their positions. Every name must
// be one the reader knows (`hint` tells the user what to fix); no repeats;
// every column in `required` must be present.
std::map<std::string, int> read_header(const std::vector<std::string>& names,
                                       const std::vector<std::string>& known,
                                       const std::vector<const char*>& required,
                                       const std::string& where, const std::string& hint);

}  // namespace pacml::sim::trace_reading
