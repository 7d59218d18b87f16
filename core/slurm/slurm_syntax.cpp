#include "core/slurm/slurm_syntax.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "core/util/error.h"
#include "core/util/numbers.h"
#include "core/util/text.h"

namespace pacml::slurm {
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
  return std::isfinite(seconds);
}

// YYYY-MM-DD[THH:MM[:SS]] in local time (Slurm's --deadline/--begin form).
double parse_local_date(const std::string& text, const std::string& where) {
  const std::string what = "deadline";
  std::tm tm{};
  tm.tm_isdst = -1;
  tm.tm_year = static_cast<int>(field(text.substr(0, 4), where, what)) - 1900;
  tm.tm_mon = static_cast<int>(field(text.substr(5, 2), where, what)) - 1;
  tm.tm_mday = static_cast<int>(field(text.substr(8, 2), where, what));
  if (text.size() > 10) {
    if (text[10] != 'T')
      throw InputError(where, "expected YYYY-MM-DD[THH:MM[:SS]], got '" + text + "'");
    const std::vector<std::string> p = split_fields(text.substr(11), ':');
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
  return static_cast<double>(at);
}

bool looks_like_date(const std::string& t) {
  return t.size() >= 10 && all_digits(t.substr(0, 4)) && t[4] == '-' &&
         all_digits(t.substr(5, 2)) && t[7] == '-' && all_digits(t.substr(8, 2));
}

// Splits at commas that are not inside brackets.
std::vector<std::string> split_hostlist_items(const std::string& text, const std::string& where) {
  std::vector<std::string> items;
  std::string item;
  int depth = 0;
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']' && --depth < 0) throw InputError(where, "unbalanced ']' in '" + text + "'");
    if (c == ',' && depth == 0) {
      items.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  if (depth != 0) throw InputError(where, "unbalanced '[' in '" + text + "'");
  items.push_back(item);
  return items;
}

// One item of a hostlist: prefix[lo-hi,…]suffix, or a plain name (no ranges).
struct HostItem {
  struct Range {
    long lo = 0, hi = 0;
    size_t width = 0;  // zero padding ("[01-04]": 2), 0 for none
  };
  std::string prefix, suffix;
  std::vector<Range> ranges;
  size_t count() const {
    if (ranges.empty()) return 1;
    size_t n = 0;
    for (const Range& r : ranges) n += static_cast<size_t>(r.hi - r.lo + 1);
    return n;
  }
};

HostItem parse_hostlist_item(const std::string& item, const std::string& where) {
  const std::string name(trim(item));
  if (name.empty()) throw InputError(where, "empty node name in hostlist");
  if (name.size() > kMaxHostNameBytes)
    throw InputError(where,
                     "a node name is longer than " + std::to_string(kMaxHostNameBytes) + " bytes");
  HostItem out;
  const size_t open = name.find('[');
  if (open == std::string::npos) {
    if (name.find(']') != std::string::npos)
      throw InputError(where, "unbalanced ']' in '" + name + "'");
    out.prefix = name;
    return out;
  }
  const size_t close = name.find(']', open);
  if (name.find('[', open + 1) != std::string::npos)
    throw InputError(where, "only one [range] per name is supported: '" + name + "'");
  out.prefix = name.substr(0, open), out.suffix = name.substr(close + 1);
  const std::string ranges = name.substr(open + 1, close - open - 1);
  if (ranges.empty()) throw InputError(where, "empty range in '" + name + "'");
  for (const std::string& part : split_fields(ranges, ',')) {
    const size_t dash = part.find('-');
    const std::string lo_text = part.substr(0, dash);
    const std::string hi_text = dash == std::string::npos ? lo_text : part.substr(dash + 1);
    HostItem::Range r;
    r.lo = parse_integer(lo_text, 0, 99999999, where, "hostlist range start");
    r.hi = parse_integer(hi_text, 0, 99999999, where, "hostlist range end");
    if (r.hi < r.lo) throw InputError(where, "descending range '" + part + "' in '" + name + "'");
    if (r.hi - r.lo > 100000) throw InputError(where, "range '" + part + "' is too large");
    r.width = lo_text.size() > 1 && lo_text[0] == '0' ? lo_text.size() : 0;
    out.ranges.push_back(r);
  }
  return out;
}

void expand_hostlist_item(const HostItem& item, std::vector<std::string>& out) {
  if (item.ranges.empty()) {
    out.push_back(item.prefix);
    return;
  }
  for (const HostItem::Range& r : item.ranges)
    for (long i = r.lo; i <= r.hi; ++i) {
      std::string digits = std::to_string(i);
      if (digits.size() < r.width) digits.insert(0, r.width - digits.size(), '0');
      out.push_back(item.prefix + digits + item.suffix);
    }
}

std::vector<HostItem> parse_hostlist(const std::string& text, const std::string& where) {
  std::vector<HostItem> items;
  for (const std::string& item : split_hostlist_items(text, where))
    items.push_back(parse_hostlist_item(item, where));
  return items;
}

size_t count_items(const std::vector<HostItem>& items) {
  size_t n = 0;
  for (const HostItem& item : items) n += item.count();  // ≤ bytes × 100001: no overflow
  return n;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// "%XX" → the byte; a '%' not followed by two hex digits stays as it is.
std::string percent_decode(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int hi = hex_value(text[i + 1]), lo = hex_value(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

// The bytes a comment value cannot hold as they are: word and pair
// separators, the escape character itself, and control characters.
std::string percent_encode(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c == 0x7f || c == ',' || c == ';' || c == '%' || c == '=') {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

std::string number_text(double v) {
  return significant_number_text(v, 6);
}

}  // namespace

double parse_duration_seconds(const std::string& raw, const std::string& where,
                              const std::string& what) {
  const std::string text(trim(raw));
  if (text.empty()) throw InputError(where, what + " is empty");
  if (text[0] == '-') throw InputError(where, what + " must not be negative, got '" + text + "'");
  double seconds = 0;
  if (parse_with_unit(text, seconds)) return seconds;
  const size_t dash = text.find('-');
  if (dash != std::string::npos) {  // D-HH[:MM[:SS]]
    const long days = field(text.substr(0, dash), where, what);
    const std::vector<std::string> p = split_fields(text.substr(dash + 1), ':');
    if (p.size() > 3) throw InputError(where, what + ": '" + text + "' is not Slurm time syntax");
    const long h = field(p[0], where, what), m = p.size() > 1 ? field(p[1], where, what) : 0,
               s = p.size() > 2 ? field(p[2], where, what) : 0;
    return ((static_cast<double>(days) * 24 + h) * 60 + m) * 60 + s;
  }
  const std::vector<std::string> p = split_fields(text, ':');
  if (p.size() == 1) return 60.0 * field(p[0], where, what);  // minutes
  if (p.size() == 2) return 60.0 * field(p[0], where, what) + field(p[1], where, what);
  if (p.size() == 3)
    return 3600.0 * field(p[0], where, what) + 60.0 * field(p[1], where, what) +
           field(p[2], where, what);
  throw InputError(where, what + ": '" + text + "' is not Slurm time syntax");
}

std::optional<double> parse_time_limit_seconds(const std::string& raw, const std::string& where) {
  const std::string text(trim(raw));
  if (text.empty() || text == "UNLIMITED" || text == "Partition_Limit" || text == "INVALID")
    return std::nullopt;
  return parse_duration_seconds(text, where, "time limit");
}

double parse_timestamp(const std::string& text, const std::string& where) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6 ||
      consumed != static_cast<int>(text.size()) || tm.tm_year < 1970 || tm.tm_year > 9999 ||
      tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour < 0 ||
      tm.tm_hour > 23 || tm.tm_min < 0 || tm.tm_min > 59 || tm.tm_sec < 0 || tm.tm_sec > 60)
    throw InputError(where, "'" + text + "' is not a time like 2026-11-29T23:05:01");
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm));
}

double parse_deadline_seconds(const std::string& raw, double now, const std::string& where) {
  const std::string text(trim(raw));
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
      left = static_cast<double>(parse_integer(rest, 0, 1000000000, where, "deadline"));
    } else if (!parse_with_unit(rest, left)) {
      throw InputError(where,
                       "expected now+COUNT[seconds|minutes|hours|days|weeks], got '" + text + "'");
    }
  } else if (looks_like_date(text)) {
    left = parse_local_date(text, where) - now;
    if (left <= 0) throw InputError(where, "the deadline " + text + " is in the past");
  } else {
    left = parse_duration_seconds(text, where, "deadline");
  }
  if (!(left > 0)) throw InputError(where, "the deadline must be positive, got '" + text + "'");
  if (!(left <= kMaxDeadlineDays * 86400))
    throw InputError(where, "the deadline '" + text + "' is more than " +
                                number_text(kMaxDeadlineDays) + " days away");
  return left;
}

std::string format_minutes(long minutes) {
  if (minutes < 60) return std::to_string(minutes);
  char buf[48];
  const long days = minutes / 1440, h = minutes / 60 % 24, m = minutes % 60;
  if (days > 0)
    std::snprintf(buf, sizeof buf, "%ld-%02ld:%02ld:00", days, h, m);
  else
    std::snprintf(buf, sizeof buf, "%02ld:%02ld:00", h, m);
  return buf;
}

size_t count_hostlist(const std::string& text, const std::string& where) {
  return count_items(parse_hostlist(text, where));
}

std::vector<std::string> expand_hostlist(const std::string& text, const std::string& where,
                                         size_t max_names) {
  const std::vector<HostItem> items = parse_hostlist(text, where);
  const size_t count = count_items(items);
  if (count > max_names)
    throw InputError(where, "the hostlist names " + std::to_string(count) +
                                " nodes, more than the " + std::to_string(max_names) +
                                " there can be here");
  std::vector<std::string> out;
  out.reserve(count);
  for (const HostItem& item : items) expand_hostlist_item(item, out);
  return out;
}

std::string join_hostlist(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

void set_request_field(RequestFields& r, const std::string& key, const std::string& value,
                       const std::string& where) {
  if (key == "graph") {
    if (value.empty()) throw InputError(where, "the graph file name is empty");
    r.graph = value;
  } else if (key == "model") {
    if (value.empty()) throw InputError(where, "the model name is empty");
    r.model = value;
  } else if (key == "steps" || key == "iterations") {
    if (r.steps)
      throw InputError(where,
                       "the job's length is given twice (--pacml-steps and "
                       "--pacml-iterations are the same thing: training steps)");
    r.steps = parse_integer(value, 1, 1000000000, where, key);
  } else if (key == "deadline") {
    if (trim(value).empty()) throw InputError(where, "the deadline is empty");
    r.deadline = value;
  } else if (key == "beta") {
    const double b = parse_finite_double(value, where, "beta");
    if (!(b > 0 && b <= 1)) throw InputError(where, "beta must be in (0, 1], got " + value);
    r.beta = b;
  } else {
    throw InputError(where, "unknown pacml option '" + key + "' (known: " + kRequestKeys + ")");
  }
}

bool parse_comment(const std::string& comment, RequestFields& fields, const std::string& where) {
  std::string text = comment;
  for (char& c : text)
    if (c == ';' || std::isspace(static_cast<unsigned char>(c))) c = ' ';
  bool found = false;
  for (const std::string& word : split_fields(text, ' ')) {
    if (word.rfind("pacml:", 0) != 0) continue;
    found = true;
    for (const std::string& pair : split_fields(word.substr(6), ',')) {
      if (pair.empty()) continue;
      const size_t eq = pair.find('=');
      if (eq == std::string::npos)
        throw InputError(where, "comment entry '" + pair +
                                    "' is not key=value (e.g. pacml:model=gnmt,deadline=2:00:00)");
      const std::string key = pair.substr(0, eq);
      set_request_field(fields, key, percent_decode(pair.substr(eq + 1)), where + " pacml:" + key);
    }
  }
  return found;
}

std::string format_comment(const RequestFields& f) {
  std::string out;
  const auto add = [&](const char* key, const std::string& value) {
    out += (out.empty() ? "pacml:" : ",") + std::string(key) + "=" + percent_encode(value);
  };
  if (f.graph) add("graph", *f.graph);
  if (f.model) add("model", *f.model);
  if (f.beta) add("beta", number_text(*f.beta));
  if (f.deadline) add("deadline", *f.deadline);
  if (f.steps) add("steps", std::to_string(*f.steps));
  return out;
}

}  // namespace pacml::slurm
