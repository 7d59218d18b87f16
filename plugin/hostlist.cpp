#include "plugin/hostlist.h"

#include "core/util/error.h"
#include "core/util/numbers.h"

namespace pacml::plugin {
namespace {

// Splits at commas that are not inside brackets.
std::vector<std::string> split_items(const std::string& text, const std::string& where) {
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

void expand_item(const std::string& item, const std::string& where, std::vector<std::string>& out) {
  const std::string name(trim(item));
  if (name.empty()) throw InputError(where, "empty node name in hostlist");
  const size_t open = name.find('[');
  if (open == std::string::npos) {
    if (name.find(']') != std::string::npos)
      throw InputError(where, "unbalanced ']' in '" + name + "'");
    out.push_back(name);
    return;
  }
  const size_t close = name.find(']', open);
  if (name.find('[', open + 1) != std::string::npos)
    throw InputError(where, "only one [range] per name is supported: '" + name + "'");
  const std::string prefix = name.substr(0, open), suffix = name.substr(close + 1);
  const std::string ranges = name.substr(open + 1, close - open - 1);
  if (ranges.empty()) throw InputError(where, "empty range in '" + name + "'");
  size_t start = 0;
  while (start <= ranges.size()) {
    size_t comma = ranges.find(',', start);
    if (comma == std::string::npos) comma = ranges.size();
    const std::string part = ranges.substr(start, comma - start);
    const size_t dash = part.find('-');
    const std::string lo_text = part.substr(0, dash);
    const std::string hi_text = dash == std::string::npos ? lo_text : part.substr(dash + 1);
    const long lo = parse_integer(lo_text, 0, 99999999, where, "hostlist range start");
    const long hi = parse_integer(hi_text, 0, 99999999, where, "hostlist range end");
    if (hi < lo) throw InputError(where, "descending range '" + part + "' in '" + name + "'");
    if (hi - lo > 100000) throw InputError(where, "range '" + part + "' is too large");
    const size_t width = lo_text.size() > 1 && lo_text[0] == '0' ? lo_text.size() : 0;
    for (long i = lo; i <= hi; ++i) {
      std::string digits = std::to_string(i);
      if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
      out.push_back(prefix + digits + suffix);
    }
    start = comma + 1;
  }
}

}  // namespace

std::vector<std::string> expand_hostlist(const std::string& text, const std::string& where) {
  std::vector<std::string> out;
  for (const std::string& item : split_items(text, where)) expand_item(item, where, out);
  return out;
}

std::string join_hostlist(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

}  // namespace pacml::plugin
