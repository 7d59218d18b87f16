// A small option parser for pacml's subcommands: --name VALUE, --name=VALUE,
// boolean --flag, positional arguments, and a generated --help text.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pacml::cli {

class Args {
 public:
  // usage: "pacml estimate --graph FILE [options]"; description: a paragraph.
  Args(std::string usage, std::string description);

  // Declare options before parse(). metavar empty = boolean flag.
  Args& option(const std::string& name, const std::string& metavar, const std::string& help,
               const std::string& default_value = "");
  Args& flag(const std::string& name, const std::string& help);
  Args& positional(const std::string& name, const std::string& help, bool required = true);

  // Parses; throws InputError("pacml", ...) for unknown options or missing
  // values. Returns false if --help was given (help already printed).
  bool parse(const std::vector<std::string>& args);

  bool has(const std::string& name) const;         // given on the command line
  std::string get(const std::string& name) const;  // value or default
  std::optional<std::string> maybe(const std::string& name) const;
  bool is_set(const std::string& flag) const;
  const std::vector<std::string>& positionals() const { return positionals_; }
  double get_double(const std::string& name) const;
  long get_long(const std::string& name, long lo, long hi) const;

  std::string help() const;

 private:
  struct Option {
    std::string metavar, help, default_value;
  };
  std::string usage_, description_;
  std::map<std::string, Option> options_;
  std::vector<std::string> order_;
  std::vector<std::pair<std::string, std::string>> positional_help_;
  size_t required_positionals_ = 0;
  std::map<std::string, std::string> values_;
  std::vector<std::string> flags_set_;
  std::vector<std::string> positionals_;
};

}  // namespace pacml::cli
