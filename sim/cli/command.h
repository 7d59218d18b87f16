// Subcommands of the `pacml` tool register themselves here (git style:
// `pacml <command> [args]`). Each command lives in its own cmd_*.cpp file and
// adds itself with a static PACML_COMMAND(...) registration, so adding a
// command never means editing main.cpp.
#pragma once

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

// All registered commands, sorted by name.
std::vector<CommandInfo> commands();

struct CommandRegistrar {
  CommandRegistrar(const char* name, const char* summary, CommandFn run);
};

}  // namespace pacml::cli

#define PACML_COMMAND(name, summary, fn) \
  static const ::pacml::cli::CommandRegistrar pacml_command_registrar_##fn(name, summary, fn)
