// Option parsing for pacml's subcommands, on CLI11: --name VALUE,
// --name=VALUE, boolean --flag, positional arguments, and a --help text
// generated from the same declarations. Every option is bound to a member of
// the command's options struct, which CLI11 fills as it parses: there is no
// look-up by name, so reading an option the command never declared cannot
// compile. Unknown options and arguments beyond
// the declared positionals are errors (InputError, so the command exits 2),
// with a hint at the closest declared option. CLI11 stays inside args.cpp
// (libpacml_args.la). The options layer of both commands: `pacml` (sim/cli/)
// and `pacml-train` (model/train_main.cpp).
#pragma once

#include <functional>
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

  // Typed options (issue 30, item 2): CLI11 writes the value into the struct
  // member it is bound to, checked on the way (integers and numbers in
  // [lo, hi], choices with CLI::IsMember), so a command reads finished
  // structs, never option names. The help's default is the member's value
  // when the option is bound (std::optional members: none, "not given").
  Args& bind(const std::string& name, const std::string& metavar, const std::string& help,
             std::string& member);
  // `absent_means`: what the command does when the option is not given, for --help.
  Args& bind(const std::string& name, const std::string& metavar, const std::string& help,
             std::optional<std::string>& member, const std::string& absent_means = "");
  Args& bind(const std::string& name, const std::string& metavar, const std::string& help,
             int& member, long lo, long hi);
  Args& bind(const std::string& name, const std::string& metavar, const std::string& help,
             long& member, long lo, long hi);
  Args& bind(const std::string& name, const std::string& metavar, const std::string& help,
             std::optional<int>& member, long lo, long hi);
  Args& bind(const std::string& name, const std::string& metavar, const std::string& help,
             std::optional<long>& member, long lo, long hi);
  Args& bind(const std::string& name, const std::string& metavar, const std::string& help,
             double& member);
  Args& bind(const std::string& name, const std::string& metavar, const std::string& help,
             std::optional<double>& member);
  // A boolean flag: true when given.
  Args& bind_flag(const std::string& name, const std::string& help, bool& member);
  // One of `choices` (CLI::IsMember); the metavar lists them.
  Args& bind_choice(const std::string& name, const std::vector<std::string>& choices,
                    const std::string& help, std::string& member);
  Args& bind_choice(const std::string& name, const std::vector<std::string>& choices,
                    const std::string& help, std::optional<std::string>& member);
  // A value parsed by `parse(text, "--name")` (an enum, a world, a yes/no),
  // which throws InputError naming where; `default_text` is the help's default.
  template <class T, class Parse>
  Args& bind_parsed(const std::string& name, const std::string& metavar, const std::string& help,
                    T& member, Parse parse, const std::string& default_text = "") {
    add_typed(name, metavar, help, default_text, [&member, parse, name](const std::string& text) {
      member = parse(text, "--" + name);
    });
    return *this;
  }
  // Positional arguments bound to members, in declaration order.
  Args& bind_positional(const std::string& name, const std::string& help, std::string& member,
                        bool required = true);
  Args& bind_positionals(const std::string& name, const std::string& help,
                         std::vector<std::string>& members);
  // Giving both options is an InputError naming `first` (CLI11's excludes).
  Args& excludes(const std::string& first, const std::string& second);

  // Parses; throws InputError for unknown options, unexpected arguments,
  // missing values or arguments. Returns false if --help was given (help
  // already printed).
  bool parse(const std::vector<std::string>& args);

  // The options and flags given on the command line (names without "--"), in
  // name order: for a command whose options each belong to one mode and are
  // refused in the other (pacml replay).
  std::vector<std::string> given() const;

  std::string help() const;

 private:
  struct Storage;
  // The one way a typed option is declared: CLI11 calls `set` with the
  // option's text (the last one given) during parse().
  CLI::Option* add_typed(const std::string& name, const std::string& metavar,
                         const std::string& help, const std::string& default_text,
                         std::function<void(const std::string&)> set);
  void reject_extras() const;
  std::string usage_;
  std::unique_ptr<CLI::App> app_;
  std::unique_ptr<Storage> storage_;
};

// Which of `names` argv[0] is, as CLI11 subcommands that each take the rest
// of the command line unparsed (for the command's or verb's own Args): its
// index, with the arguments after it in `rest`. An unknown name throws
// InputError("unknown KIND 'x' (did you mean 'y'?)"). For `pacml COMMAND`
// (sim/cli/main.cpp) and the verbs of `pacml graph`, `node`, `device`, ...
size_t parse_subcommand(const std::vector<std::string>& names, const std::string& kind,
                        const std::vector<std::string>& argv, std::vector<std::string>& rest);

// " (did you mean 'X'?)" for the candidate closest to `word` (a small edit
// distance), or "" when none is close: the hint of unknown names.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace pacml
