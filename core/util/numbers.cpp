#include "core/util/numbers.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <limits>
#include <sstream>
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

namespace {

// "1e+08" → "1e8", "5e-09" → "5e-9": the exponent as a person writes it.
std::string compact_exponent(std::string text) {
  const size_t e = text.find('e');
  if (e == std::string::npos) return text;
  size_t digits = e + 1;
  std::string sign;
  if (digits < text.size() && (text[digits] == '+' || text[digits] == '-'))
    sign = text[digits] == '-' ? "-" : "", ++digits;
  while (digits + 1 < text.size() && text[digits] == '0') ++digits;
  return text.substr(0, e + 1) + sign + text.substr(digits);
}

}  // namespace

std::string significant_number_text(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

std::string engineering_number_text(double value) {
  const std::string exact = exact_number_text(value);
  const std::size_t e = exact.find('e');
  if (e == std::string::npos) return exact;
  const long exponent = std::stol(exact.substr(e + 1));
  const long shift = ((exponent % 3) + 3) % 3;  // places the point moves right
  if (shift == 0) return exact;
  const bool negative = exact[0] == '-';
  std::string digits = exact.substr(negative ? 1 : 0, e - (negative ? 1 : 0));
  const std::size_t dot = digits.find('.');
  std::size_t point = dot == std::string::npos ? digits.size() : dot;
  if (dot != std::string::npos) digits.erase(dot, 1);
  point += static_cast<std::size_t>(shift);
  if (digits.size() < point) digits.append(point - digits.size(), '0');
  if (point < digits.size()) digits.insert(point, ".");
  return (negative ? "-" : "") + digits + "e" + std::to_string(exponent - shift);
}

std::string exact_number_text(double value) {
  if (!std::isfinite(value)) return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  if (value == std::floor(value) && std::fabs(value) < 1e6)
    return std::to_string(static_cast<long>(value));
  for (int digits = 1; digits <= std::numeric_limits<double>::max_digits10; ++digits) {
    std::ostringstream shorter;
    shorter << std::setprecision(digits) << value;
    if (std::strtod(shorter.str().c_str(), nullptr) == value)
      return compact_exponent(shorter.str());
  }
  return "";  // not reached: max_digits10 always reads back
}

}  // namespace pacml
