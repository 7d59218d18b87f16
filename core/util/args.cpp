#include "core/util/args.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <deque>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "core/util/error.h"
#include "core/util/numbers.h"

namespace pacml {

// CLI11 writes each option's value into a variable it is given; these hold
// them (std::map and std::deque never move their elements, so the addresses
// CLI11 keeps stay valid).
struct Args::Storage {
  std::map<std::string, std::string> values;    // option → value, its default until given
  std::map<std::string, CLI::Option*> options;  // options and flags by name (without "--")
  // Positionals in declaration order, each with its value (nullptr: the list).
  std::vector<std::pair<CLI::Option*, std::string*>> positionals;
  std::deque<std::string> positional_values;
  std::vector<std::string> list;
  bool has_list = false;
};

namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// "--grph=x" → "--grph".
std::string option_word(const std::string& token) {
  return token.substr(0, token.find('='));
}

}  // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  size_t best_distance = 0;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (!best || d < best_distance) best = &c, best_distance = d;
  }
  // Two edits (a typo and a dropped letter) but never half the word: "x"
  // is not a misspelt "xml".
  if (!best || best_distance > 2 || 2 * best_distance >= word.size()) return "";
  return " (did you mean '" + *best + "'?)";
}

Args::Args(std::string usage, std::string description)
    : usage_(std::move(usage)),
      app_(std::make_unique<CLI::App>(std::move(description))),
      storage_(std::make_unique<Storage>()) {
  app_->set_help_flag("-h,--help", "show this help");
  // Extras are checked after parsing (reject_extras) to word the error.
  app_->allow_extras(true);
}

Args::~Args() = default;

Args& Args::option(const std::string& name, const std::string& metavar, const std::string& help,
                   const std::string& default_value) {
  if (metavar.empty()) return flag(name, help);
  storage_->values[name] = default_value;
  CLI::Option* opt = app_->add_option("--" + name, storage_->values[name], help);
  // The last of repeated options wins, as with most Unix tools.
  opt->type_name(metavar)
      ->default_str(default_value)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  storage_->options[name] = opt;
  return *this;
}

Args& Args::flag(const std::string& name, const std::string& help) {
  // disable_flag_override: "--json=no" is an error, not a way to unset.
  storage_->options[name] = app_->add_flag("--" + name, help)->disable_flag_override();
  return *this;
}

Args& Args::positional(const std::string& name, const std::string& help, bool required) {
  if (storage_->has_list) throw std::logic_error("Args: positional after positional_list");
  std::string* value = &storage_->positional_values.emplace_back();
  CLI::Option* opt = app_->add_option(name, *value, help)->required(required);
  storage_->positionals.emplace_back(opt, value);
  return *this;
}

Args& Args::positional_list(const std::string& name, const std::string& help) {
  CLI::Option* opt = app_->add_option(name, storage_->list, help);
  storage_->positionals.emplace_back(opt, nullptr);
  storage_->has_list = true;
  return *this;
}

namespace {

// CLI11's own message for a missing value ("--graph: 1 required FILE
// missing") or a flag given a value ("json was given a disallowed flag
// override") reworded as pacml's other option errors are.
[[noreturn]] void throw_mismatch(const CLI::ParseError& e,
                                 const std::map<std::string, CLI::Option*>& options) {
  const std::string what = e.what();
  std::string name = what.substr(0, what.find_first_of(": "));
  name.erase(0, name.find_first_not_of('-'));
  const auto it = options.find(name);
  if (it == options.end()) throw InputError("", what + " (see --help)");
  if (it->second->get_items_expected_max() == 0)
    throw InputError("--" + name, "is a flag and takes no value");
  throw InputError("--" + name, "needs a value (" + it->second->get_type_name() + ")");
}

[[noreturn]] void throw_unknown_option(const std::string& token,
                                       const std::map<std::string, CLI::Option*>& options) {
  std::vector<std::string> names;
  for (const auto& [name, opt] : options) names.push_back("--" + name);
  const std::string word = option_word(token);
  if (word.rfind("--", 0) != 0) {
    // "-json": pacml's options are long ones, written with two dashes.
    const std::string hint = did_you_mean("-" + word, names);
    throw InputError(
        word, "unknown option: options start with '--'" + (hint.empty() ? " (see --help)" : hint));
  }
  const std::string hint = did_you_mean(word, names);
  throw InputError(word, "unknown option" + (hint.empty() ? " (see --help)" : hint));
}

}  // namespace

bool Args::parse(const std::vector<std::string>& args) {
  try {
    app_->parse(std::vector<std::string>(args.rbegin(), args.rend()));  // CLI11 wants it reversed
  } catch (const CLI::CallForHelp&) {
    std::cout << help();
    return false;
  } catch (const CLI::RequiredError& e) {
    for (const auto& [opt, value] : storage_->positionals)
      if (opt->get_required() && opt->count() == 0)
        throw InputError("", "missing argument " + opt->get_name(true) + " (see --help)");
    throw InputError("", std::string(e.what()) + " (see --help)");
  } catch (const CLI::ArgumentMismatch& e) {
    throw_mismatch(e, storage_->options);
  } catch (const CLI::ParseError& e) {
    throw InputError("", std::string(e.what()) + " (see --help)");
  }
  reject_extras();
  positionals_.clear();
  for (const auto& [opt, value] : storage_->positionals) {
    if (!value)
      positionals_.insert(positionals_.end(), storage_->list.begin(), storage_->list.end());
    else if (opt->count() > 0)
      positionals_.push_back(*value);
  }
  return true;
}

// What CLI11 could not place: an unknown option, or an argument beyond the
// declared positionals (`pacml estimate … -json`, `pacml topology x`).
void Args::reject_extras() const {
  const std::vector<std::string> extras = app_->remaining();
  if (extras.empty()) return;
  const std::string& token = extras.front();
  if (token.size() > 1 && token[0] == '-') throw_unknown_option(token, storage_->options);
  std::string takes;
  for (const auto& [opt, value] : storage_->positionals)
    takes += (takes.empty() ? "" : " ") + opt->get_name(true);
  throw InputError("", "unexpected argument '" + token + "' (" +
                           (takes.empty() ? "the command takes no arguments"
                                          : "the command's arguments: " + takes) +
                           "; see --help)");
}

// A look-up of a name the command never declared, or of a flag as an option
// (or the reverse), is a bug in the command, not bad input: it would
// otherwise read as "not given" and silently drop what the user typed.
const CLI::Option& Args::declared(const std::string& name, bool flag) const {
  const auto it = storage_->options.find(name);
  if (it == storage_->options.end())
    throw std::logic_error("Args: --" + name + " is looked up but not declared");
  if ((it->second->get_items_expected_max() == 0) != flag)
    throw std::logic_error(
        "Args: --" + name + " is looked up as " +
        (flag ? "a flag but declared as an option" : "an option but declared as a flag"));
  return *it->second;
}

bool Args::has(const std::string& name) const {
  return declared(name, false).count() > 0;
}

std::string Args::get(const std::string& name) const {
  declared(name, false);
  return storage_->values.at(name);
}

std::optional<std::string> Args::maybe(const std::string& name) const {
  const std::string value = get(name);
  if (has(name) || !value.empty()) return value;
  return std::nullopt;
}

bool Args::is_set(const std::string& flag) const {
  return declared(flag, true).count() > 0;
}

double Args::get_double(const std::string& name) const {
  return parse_finite_double(get(name), "--" + name, "value");
}

long Args::get_long(const std::string& name, long lo, long hi) const {
  return parse_integer(get(name), lo, hi, "--" + name, "value");
}

// The text of --help, from the declarations CLI11 holds.
std::string Args::help() const {
  std::ostringstream out;
  out << "usage: " << usage_ << "\n\n" << app_->get_description() << "\n";
  if (!storage_->positionals.empty()) {
    out << "\narguments:\n";
    for (const auto& [o, value] : storage_->positionals)
      out << "  " << o->get_name(true) << (value ? "" : " ...") << "\n      "
          << o->get_description() << "\n";
  }
  out << "\noptions:\n";
  const CLI::Option* help_flag = app_->get_help_ptr();
  for (const CLI::Option* o : app_->get_options()) {
    if (o->get_positional() || o == help_flag) continue;
    const bool is_flag = o->get_items_expected_max() == 0;
    out << "  " << o->get_name() << (is_flag ? "" : " " + o->get_type_name()) << "\n      "
        << o->get_description();
    if (!o->get_default_str().empty()) out << " (default: " << o->get_default_str() << ")";
    out << "\n";
  }
  out << "  --help\n      " << help_flag->get_description() << "\n";
  return out.str();
}

}  // namespace pacml
