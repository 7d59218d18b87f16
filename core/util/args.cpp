#include "core/util/args.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "core/util/error.h"
#include "core/util/numbers.h"

namespace pacml {

// What parse() and help() need to know of the declarations CLI11 holds.
struct Args::Storage {
  std::map<std::string, CLI::Option*> options;  // options and flags by name (without "--")
  // Positionals in declaration order, each with its member (nullptr: the list).
  std::vector<std::pair<CLI::Option*, std::string*>> positionals;
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

CLI::Option* Args::add_typed(const std::string& name, const std::string& metavar,
                             const std::string& help, const std::string& default_text,
                             std::function<void(const std::string&)> set) {
  CLI::Option* opt = app_->add_option_function<std::string>("--" + name, std::move(set), help);
  opt->type_name(metavar)
      ->default_str(default_text)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  storage_->options[name] = opt;
  return opt;
}

Args& Args::bind(const std::string& name, const std::string& metavar, const std::string& help,
                 std::string& member) {
  add_typed(name, metavar, help, member, [&member](const std::string& text) { member = text; });
  return *this;
}

Args& Args::bind(const std::string& name, const std::string& metavar, const std::string& help,
                 std::optional<std::string>& member, const std::string& absent_means) {
  add_typed(name, metavar, help, member.value_or(absent_means),
            [&member](const std::string& text) { member = text; });
  return *this;
}

Args& Args::bind(const std::string& name, const std::string& metavar, const std::string& help,
                 int& member, long lo, long hi) {
  add_typed(name, metavar, help, std::to_string(member),
            [&member, name, lo, hi](const std::string& text) {
              member = static_cast<int>(parse_integer(text, lo, hi, "--" + name, "value"));
            });
  return *this;
}

Args& Args::bind(const std::string& name, const std::string& metavar, const std::string& help,
                 long& member, long lo, long hi) {
  add_typed(name, metavar, help, std::to_string(member),
            [&member, name, lo, hi](const std::string& text) {
              member = parse_integer(text, lo, hi, "--" + name, "value");
            });
  return *this;
}

Args& Args::bind(const std::string& name, const std::string& metavar, const std::string& help,
                 std::optional<int>& member, long lo, long hi) {
  add_typed(name, metavar, help, member ? std::to_string(*member) : "",
            [&member, name, lo, hi](const std::string& text) {
              member = static_cast<int>(parse_integer(text, lo, hi, "--" + name, "value"));
            });
  return *this;
}

Args& Args::bind(const std::string& name, const std::string& metavar, const std::string& help,
                 std::optional<long>& member, long lo, long hi) {
  add_typed(name, metavar, help, member ? std::to_string(*member) : "",
            [&member, name, lo, hi](const std::string& text) {
              member = parse_integer(text, lo, hi, "--" + name, "value");
            });
  return *this;
}

Args& Args::bind(const std::string& name, const std::string& metavar, const std::string& help,
                 double& member) {
  add_typed(name, metavar, help, exact_number_text(member),
            [&member, name](const std::string& text) {
              member = parse_finite_double(text, "--" + name, "value");
            });
  return *this;
}

Args& Args::bind(const std::string& name, const std::string& metavar, const std::string& help,
                 std::optional<double>& member) {
  add_typed(name, metavar, help, member ? exact_number_text(*member) : "",
            [&member, name](const std::string& text) {
              member = parse_finite_double(text, "--" + name, "value");
            });
  return *this;
}

Args& Args::bind_flag(const std::string& name, const std::string& help, bool& member) {
  // disable_flag_override: "--json=no" is an error, not a way to unset.
  storage_->options[name] = app_->add_flag("--" + name, member, help)->disable_flag_override();
  return *this;
}

namespace {

std::string choices_metavar(const std::vector<std::string>& choices) {
  std::string text;
  for (const std::string& c : choices) text += (text.empty() ? "" : "|") + c;
  return text;
}

}  // namespace

Args& Args::bind_choice(const std::string& name, const std::vector<std::string>& choices,
                        const std::string& help, std::string& member) {
  add_typed(name, choices_metavar(choices), help, member, [&member](const std::string& text) {
    member = text;
  })->check(CLI::IsMember(choices));
  return *this;
}

Args& Args::bind_choice(const std::string& name, const std::vector<std::string>& choices,
                        const std::string& help, std::optional<std::string>& member) {
  add_typed(name, choices_metavar(choices), help, member.value_or(""),
            [&member](const std::string& text) { member = text; })
      ->check(CLI::IsMember(choices));
  return *this;
}

Args& Args::bind_positional(const std::string& name, const std::string& help, std::string& member,
                            bool required) {
  if (storage_->has_list) throw std::logic_error("Args: positional after positional_list");
  CLI::Option* opt = app_->add_option(name, member, help)->required(required);
  storage_->positionals.emplace_back(opt, &member);
  return *this;
}

Args& Args::bind_positionals(const std::string& name, const std::string& help,
                             std::vector<std::string>& members) {
  CLI::Option* opt = app_->add_option(name, members, help);
  storage_->positionals.emplace_back(opt, nullptr);
  storage_->has_list = true;
  return *this;
}

Args& Args::excludes(const std::string& first, const std::string& second) {
  CLI::Option* a = storage_->options.at(first);
  CLI::Option* b = storage_->options.at(second);
  a->excludes(b);
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

// "--format: xml not in {native,pipedream}" (CLI::IsMember) →
// InputError("--format", "must be one of native, pipedream; got 'xml'").
[[noreturn]] void reword_validation(const CLI::ValidationError& e) {
  const std::string what = e.what();
  const size_t colon = what.find(": ");
  if (colon == std::string::npos) throw InputError("", what + " (see --help)");
  const std::string option = what.substr(0, colon), detail = what.substr(colon + 2);
  const size_t not_in = detail.rfind(" not in {");
  if (not_in == std::string::npos || detail.back() != '}')
    throw InputError(option, detail + " (see --help)");
  std::string choices = detail.substr(not_in + 9, detail.size() - not_in - 10);
  for (size_t comma = choices.find(','); comma != std::string::npos;
       comma = choices.find(',', comma + 2))
    choices.replace(comma, 1, ", ");
  throw InputError(option,
                   "must be one of " + choices + "; got '" + detail.substr(0, not_in) + "'");
}

// "--model excludes --graph" → InputError("--model", "give either ... not both").
[[noreturn]] void reword_excludes(const CLI::ExcludesError& e) {
  const std::string what = e.what();
  const std::string separator = " excludes ";
  const size_t at = what.find(separator);
  if (at == std::string::npos) throw InputError("", what + " (see --help)");
  const std::string first = what.substr(0, at), second = what.substr(at + separator.size());
  throw InputError(first, "give either " + second + " or " + first + ", not both");
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
  } catch (const CLI::ValidationError& e) {
    reword_validation(e);
  } catch (const CLI::ExcludesError& e) {
    reword_excludes(e);
  } catch (const CLI::ParseError& e) {
    throw InputError("", std::string(e.what()) + " (see --help)");
  }
  reject_extras();
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

size_t parse_subcommand(const std::vector<std::string>& names, const std::string& kind,
                        const std::vector<std::string>& argv, std::vector<std::string>& rest) {
  CLI::App app;
  app.set_help_flag();  // --help goes to the command; an empty argv is the caller's
  app.require_subcommand(1, 1);
  std::vector<CLI::App*> subcommands;
  for (const std::string& name : names) {
    CLI::App* sub = app.add_subcommand(name);
    sub->set_help_flag();
    sub->prefix_command();  // everything after the name is the command's
    subcommands.push_back(sub);
  }
  try {
    app.parse(std::vector<std::string>(argv.rbegin(), argv.rend()));  // CLI11 wants it reversed
  } catch (const CLI::ParseError&) {
    const std::string word = argv.empty() ? "" : argv.front();
    throw InputError(
        "", "unknown " + kind + " '" + word + "'" + did_you_mean(word, names) + " (see --help)");
  }
  for (size_t i = 0; i < subcommands.size(); ++i)
    if (subcommands[i]->parsed()) {
      rest = subcommands[i]->remaining();
      return i;
    }
  throw std::logic_error("parse_subcommand: no subcommand parsed");
}

std::vector<std::string> Args::given() const {
  std::vector<std::string> names;
  for (const auto& [name, opt] : storage_->options)
    if (opt->count() > 0) names.push_back(name);
  return names;
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
