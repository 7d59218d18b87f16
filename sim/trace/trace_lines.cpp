#include "sim/trace/trace_lines.h"

#include <algorithm>
#include <sstream>

#include "core/util/numbers.h"

namespace pacml::sim::trace_reading {

std::vector<std::string> split_blanks(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  std::string word;
  while (in >> word) out.push_back(word);
  return out;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

double non_negative(const std::string& text, const std::string& what) {
  const std::string t(trim(text));
  double v;
  try {
    v = parse_finite_double(t, "", what);
  } catch (const InputError&) {
    throw BadLine{"malformed " + what, what + " '" + t + "' is not a number"};
  }
  if (v < 0) throw BadLine{"negative " + what, what + " is negative (" + t + ")"};
  return v;
}

long non_negative_integer(const std::string& text, const std::string& what) {
  const double v = non_negative(text, what);
  if (!(v < 9.2e18) || v != static_cast<double>(static_cast<long>(v)))
    throw BadLine{"malformed " + what,
                  what + " '" + std::string(trim(text)) + "' is not an integer"};
  return static_cast<long>(v);
}

std::map<std::string, int> read_header(const std::vector<std::string>& names,
                                       const std::vector<std::string>& known,
                                       const std::vector<const char*>& required,
                                       const std::string& where, const std::string& hint) {
  std::map<std::string, int> col;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string name(trim(names[i]));
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw InputError(where, "unknown column '" + name + "' (" + hint + ")");
    if (col.count(name)) throw InputError(where, "column '" + name + "' appears twice");
    col[name] = static_cast<int>(i);
  }
  for (const char* need : required)
    if (!col.count(need)) throw InputError(where, std::string("missing column '") + need + "'");
  return col;
}

}  // namespace pacml::sim::trace_reading
