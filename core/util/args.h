// Option parsing for pacml's subcommands, on CLI11: --name VALUE,
// --name=VALUE, boolean --flag, positional arguments, and a --help text
// generated from the same declarations. Unknown options and arguments beyond
// the declared positionals are errors (InputError, so the command exits 2),
// with a hint at the closest declared option. CLI11 stays inside args.cpp
// (libpacml_args.la). The options layer of both commands: `pacml` (sim/cli/)
// and `pacml-train` (model/train_main.cpp).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace pacml {

class Args {
 public:
  // usage: "pacml estimate --graph FILE [options]"; description: a paragraph.
  Args(std::string usage, std::string description);
  ~Args();
  Args(const Args&) = delete;
  Args& operator=(const Args&) = delete;

  // Declare options before parse(). metavar empty = boolean flag.
  Args& option(const std::string& name, const std::string& metavar, const std::string& help,
               const std::string& default_value = "");
  Args& flag(const std::string& name, const std::string& help);
  // One positional argument; declared positionals are filled in order.
  Args& positional(const std::string& name, const std::string& help, bool required = true);
  // Zero or more positional arguments (only as the last positional).
  Args& positional_list(const std::string& name, const std::string& help);

  // Parses; throws InputError for unknown options, unexpected arguments,
  // missing values or arguments. Returns false if --help was given (help
  // already printed).
  bool parse(const std::vector<std::string>& args);

  // Look-ups of an option (has, get, maybe, get_double, get_long) or a flag
  // (is_set) the command did not declare as such throw std::logic_error.
  bool has(const std::string& name) const;         // given on the command line
  std::string get(const std::string& name) const;  // value or default
  std::optional<std::string> maybe(const std::string& name) const;
  bool is_set(const std::string& flag) const;
  const std::vector<std::string>& positionals() const { return positionals_; }
  double get_double(const std::string& name) const;
  long get_long(const std::string& name, long lo, long hi) const;

  std::string help() const;

 private:
  struct Storage;
  void reject_extras() const;
  const CLI::Option& declared(const std::string& name, bool flag) const;
  std::string usage_;
  std::unique_ptr<CLI::App> app_;
  std::unique_ptr<Storage> storage_;
  std::vector<std::string> positionals_;
};

// " (did you mean 'X'?)" for the candidate closest to `word` (a small edit
// distance), or "" when none is close: the hint of unknown names.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace pacml
