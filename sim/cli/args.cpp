#include "sim/cli/args.h"

#include <algorithm>
#include <iostream>
#include <sstream>

#include "core/util/error.h"
#include "core/util/numbers.h"

namespace pacml::cli {

Args::Args(std::string usage, std::string description)
    : usage_(std::move(usage)), description_(std::move(description)) {}

Args& Args::option(const std::string& name, const std::string& metavar, const std::string& help,
                   const std::string& default_value) {
  options_[name] = {metavar, help, default_value};
  order_.push_back(name);
  return *this;
}

Args& Args::flag(const std::string& name, const std::string& help) {
  return option(name, "", help);
}

Args& Args::positional(const std::string& name, const std::string& help, bool required) {
  positional_help_.push_back({name, help});
  if (required) ++required_positionals_;
  return *this;
}

bool Args::parse(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << help();
      return false;
    }
    if (arg.rfind("--", 0) != 0 || arg == "--") {
      positionals_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2), value;
    const size_t eq = name.find('=');
    const bool inline_value = eq != std::string::npos;
    if (inline_value) value = name.substr(eq + 1), name = name.substr(0, eq);
    auto it = options_.find(name);
    if (it == options_.end()) throw InputError("--" + name, "unknown option (see --help)");
    if (it->second.metavar.empty()) {
      if (inline_value) throw InputError("--" + name, "is a flag and takes no value");
      flags_set_.push_back(name);
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= args.size())
        throw InputError("--" + name, "needs a value (" + it->second.metavar + ")");
      value = args[++i];
    }
    values_[name] = value;
  }
  if (positionals_.size() < required_positionals_)
    throw InputError("pacml", "missing argument " + positional_help_[positionals_.size()].first +
                                  " (see --help)");
  return true;
}

bool Args::has(const std::string& name) const {
  return values_.count(name) > 0;
}

std::string Args::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it != values_.end()) return it->second;
  auto opt = options_.find(name);
  return opt == options_.end() ? "" : opt->second.default_value;
}

std::optional<std::string> Args::maybe(const std::string& name) const {
  if (has(name)) return values_.at(name);
  auto opt = options_.find(name);
  if (opt != options_.end() && !opt->second.default_value.empty()) return opt->second.default_value;
  return std::nullopt;
}

bool Args::is_set(const std::string& flag) const {
  return std::find(flags_set_.begin(), flags_set_.end(), flag) != flags_set_.end();
}

double Args::get_double(const std::string& name) const {
  return parse_finite_double(get(name), "--" + name, "value");
}

long Args::get_long(const std::string& name, long lo, long hi) const {
  return parse_integer(get(name), lo, hi, "--" + name, "value");
}

std::string Args::help() const {
  std::ostringstream out;
  out << "usage: " << usage_ << "\n\n" << description_ << "\n";
  if (!positional_help_.empty()) {
    out << "\narguments:\n";
    for (const auto& [name, text] : positional_help_)
      out << "  " << name << "\n      " << text << "\n";
  }
  out << "\noptions:\n";
  for (const std::string& name : order_) {
    const Option& o = options_.at(name);
    out << "  --" << name << (o.metavar.empty() ? "" : " " + o.metavar) << "\n      " << o.help;
    if (!o.default_value.empty()) out << " (default: " << o.default_value << ")";
    out << "\n";
  }
  out << "  --help\n      show this help\n";
  return out.str();
}

}  // namespace pacml::cli
