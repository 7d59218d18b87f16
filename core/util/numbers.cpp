#include "core/util/numbers.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "core/util/error.h"

namespace pacml {

std::string_view trim(std::string_view text) {
  const char* blanks = " \t\r\n";
  auto first = text.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  auto last = text.find_last_not_of(blanks);
  return text.substr(first, last - first + 1);
}

double parse_finite_double(std::string_view text, const std::string& where,
                           const std::string& what) {
  std::string s(trim(text));
  if (s.empty()) throw InputError(where, what + " is empty");
  errno = 0;
  char* end = nullptr;
  double value = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) throw InputError(where, what + " is not a number: '" + s + "'");
  if (errno == ERANGE || !std::isfinite(value))
    throw InputError(where, what + " is out of range: '" + s + "'");
  return value;
}

double parse_non_negative(std::string_view text, const std::string& where,
                          const std::string& what) {
  double value = parse_finite_double(text, where, what);
  if (value < 0)
    throw InputError(where, what + " must not be negative: " + std::string(trim(text)));
  return value;
}

long parse_integer(std::string_view text, long lo, long hi, const std::string& where,
                   const std::string& what) {
  std::string s(trim(text));
  if (s.empty()) throw InputError(where, what + " is empty");
  errno = 0;
  char* end = nullptr;
  long value = std::strtol(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size())
    throw InputError(where, what + " is not an integer: '" + s + "'");
  if (errno == ERANGE || value < lo || value > hi)
    throw InputError(where, what + " must be between " + std::to_string(lo) + " and " +
                                std::to_string(hi) + ", got '" + s + "'");
  return value;
}

}  // namespace pacml
