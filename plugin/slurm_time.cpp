#include "plugin/slurm_time.h"

#include <cctype>
#include <cmath>
#include <ctime>
#include <vector>

#include "core/util/error.h"
#include "core/util/numbers.h"

namespace pacml::plugin {
namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

long field(const std::string& s, const std::string& where, const std::string& what) {
  if (!all_digits(s)) throw InputError(where, what + ": '" + s + "' is not Slurm time syntax");
  return parse_integer(s, 0, 100000000, where, what);
}

std::vector<std::string> split_colons(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t colon = s.find(':', start);
    parts.push_back(s.substr(start, colon - start));
    if (colon == std::string::npos) return parts;
    start = colon + 1;
  }
}

// "90s", "15min", "2h" … → seconds; returns false if `text` has no unit.
bool parse_with_unit(const std::string& text, double& seconds) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
    ++i;
  if (i == 0 || i == text.size()) return false;
  const std::string unit = text.substr(i);
  double scale = 0;
  if (unit == "s" || unit == "sec" || unit == "secs" || unit == "seconds" || unit == "second")
    scale = 1;
  else if (unit == "m" || unit == "min" || unit == "mins" || unit == "minutes" || unit == "minute")
    scale = 60;
  else if (unit == "h" || unit == "hour" || unit == "hours")
    scale = 3600;
  else if (unit == "d" || unit == "day" || unit == "days")
    scale = 86400;
  else if (unit == "w" || unit == "week" || unit == "weeks")
    scale = 7 * 86400;
  else
    return false;
  char* end = nullptr;
  const std::string number = text.substr(0, i);
  const double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(value)) return false;
  seconds = value * scale;
  return true;
}

}  // namespace

double parse_slurm_duration_seconds(const std::string& raw, const std::string& where,
                                    const std::string& what) {
  const std::string text(trim(raw));
  if (text.empty()) throw InputError(where, what + " is empty");
  if (text[0] == '-') throw InputError(where, what + " must not be negative, got '" + text + "'");
  double seconds = 0;
  if (parse_with_unit(text, seconds)) return seconds;
  long days = 0;
  std::string rest = text;
  const size_t dash = text.find('-');
  if (dash != std::string::npos) {
    days = field(text.substr(0, dash), where, what);
    rest = text.substr(dash + 1);
    const std::vector<std::string> p = split_colons(rest);
    if (p.size() > 3) throw InputError(where, what + ": '" + text + "' is not Slurm time syntax");
    long h = field(p[0], where, what), m = p.size() > 1 ? field(p[1], where, what) : 0,
         s = p.size() > 2 ? field(p[2], where, what) : 0;
    return static_cast<double>(((days * 24 + h) * 60 + m) * 60 + s);
  }
  const std::vector<std::string> p = split_colons(rest);
  if (p.size() == 1) return 60.0 * field(p[0], where, what);  // minutes
  if (p.size() == 2) return 60.0 * field(p[0], where, what) + field(p[1], where, what);
  if (p.size() == 3)
    return 3600.0 * field(p[0], where, what) + 60.0 * field(p[1], where, what) +
           field(p[2], where, what);
  throw InputError(where, what + ": '" + text + "' is not Slurm time syntax");
}

double parse_deadline_seconds(const std::string& raw, double now, const std::string& where) {
  const std::string text(trim(raw));
  const std::string what = "deadline";
  if (text.empty()) throw InputError(where, "deadline is empty");
  if (text[0] == '-')
    throw InputError(where, "the deadline must not be negative, got '" + text + "'");
  double left = 0;
  if (text.rfind("now", 0) == 0) {
    std::string rest = text.substr(3);
    if (rest.empty()) throw InputError(where, "the deadline 'now' has already passed");
    if (rest[0] == '-') throw InputError(where, "the deadline '" + text + "' is in the past");
    if (rest[0] != '+') throw InputError(where, "expected now+COUNT[unit], got '" + text + "'");
    rest = rest.substr(1);
    if (all_digits(rest)) {
      left = static_cast<double>(parse_integer(rest, 0, 1000000000, where, what));  // seconds
    } else if (!parse_with_unit(rest, left)) {
      throw InputError(where,
                       "expected now+COUNT[seconds|minutes|hours|days|weeks], got '" + text + "'");
    }
  } else if (text.size() >= 10 && all_digits(text.substr(0, 4)) && text[4] == '-' &&
             all_digits(text.substr(5, 2)) && text[7] == '-' && all_digits(text.substr(8, 2))) {
    std::tm tm{};
    tm.tm_isdst = -1;
    tm.tm_year = static_cast<int>(field(text.substr(0, 4), where, what)) - 1900;
    tm.tm_mon = static_cast<int>(field(text.substr(5, 2), where, what)) - 1;
    tm.tm_mday = static_cast<int>(field(text.substr(8, 2), where, what));
    if (text.size() > 10) {
      if (text[10] != 'T')
        throw InputError(where, "expected YYYY-MM-DD[THH:MM[:SS]], got '" + text + "'");
      const std::vector<std::string> p = split_colons(text.substr(11));
      if (p.size() < 2 || p.size() > 3)
        throw InputError(where, "expected YYYY-MM-DD[THH:MM[:SS]], got '" + text + "'");
      tm.tm_hour = static_cast<int>(field(p[0], where, what));
      tm.tm_min = static_cast<int>(field(p[1], where, what));
      tm.tm_sec = p.size() > 2 ? static_cast<int>(field(p[2], where, what)) : 0;
    }
    if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
        tm.tm_min > 59 || tm.tm_sec > 60)
      throw InputError(where, "'" + text + "' is not a valid date and time");
    const std::time_t at = std::mktime(&tm);
    if (at == static_cast<std::time_t>(-1))
      throw InputError(where, "'" + text + "' is not a valid date and time");
    left = static_cast<double>(at) - now;
    if (left <= 0) throw InputError(where, "the deadline " + text + " is in the past");
  } else {
    left = parse_slurm_duration_seconds(text, where, what);
  }
  if (!(left > 0)) throw InputError(where, "the deadline must be positive, got '" + text + "'");
  return left;
}

}  // namespace pacml::plugin
