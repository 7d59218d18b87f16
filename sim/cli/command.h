// Subcommands of the `pacml` tool register themselves here (git style:
// `pacml <command> [args]`). Each command lives in its own cmd_*.cpp file and
// adds itself with a static PACML_COMMAND(...) registration, so adding a
// command never means editing main.cpp.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace pacml::cli {

// A command gets its arguments (without the command name) and returns the
// process exit code. Throwing pacml::InputError prints "pacml <cmd>: message"
// and exits 2; any other exception exits 1.
using CommandFn = int (*)(const std::vector<std::string>& args);

struct CommandInfo {
  std::string name;     // "estimate", or "graph" for a command with its own verbs
  std::string summary;  // one line for `pacml --help`
  CommandFn run;
};

// A command with verbs of its own (`pacml graph info`, `pacml device fit`):
// each verb's function and its line in the command's --help.
struct Verb {
  CommandFn run;
  const char* summary;
};
using VerbTable = std::map<std::string, Verb>;

// Runs the verb argv[0] names with the rest of argv. No arguments print the
// verbs to stderr and return 2, --help prints them to stdout and returns 0; an
// unknown verb is an InputError naming the nearest known one.
int run_verb(const std::string& command, const std::string& description, const VerbTable& verbs,
             const std::vector<std::string>& argv);

// All registered commands, sorted by name.
std::vector<CommandInfo> commands();

struct CommandRegistrar {
  CommandRegistrar(const char* name, const char* summary, CommandFn run);
};

}  // namespace pacml::cli

#define PACML_COMMAND(name, summary, fn) \
  static const ::pacml::cli::CommandRegistrar pacml_command_registrar_##fn(name, summary, fn)
