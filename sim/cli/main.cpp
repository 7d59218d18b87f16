// pacml — command-line entry point. Dispatches `pacml <command> ...` to the
// command registered under that name (see command.h).
#include <exception>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "config.h"
#include "core/util/args.h"
#include "core/util/error.h"
#include "sim/cli/command.h"

namespace pacml::cli {
namespace {

std::map<std::string, CommandInfo>& registry() {
  static std::map<std::string, CommandInfo> commands;
  return commands;
}

void print_usage(std::ostream& out) {
  out << "usage: pacml <command> [options]\n\n"
         "pacml decides how many GPUs a distributed training job gets and how to split\n"
         "it, so that it meets its deadline and leaves room for the jobs after it (PAC-ML,\n"
         "arXiv 2301.13799, on GPU clusters and Slurm; the paper's RAMP world too). Commands:\n\n";
  for (const CommandInfo& c : commands()) {
    out << "  " << c.name;
    out << std::string(c.name.size() < 18 ? 18 - c.name.size() : 1, ' ') << c.summary << "\n";
  }
  out << "\n'pacml <command> --help' describes a command. pacml " PACKAGE_VERSION "\n";
}

}  // namespace

CommandRegistrar::CommandRegistrar(const char* name, const char* summary, CommandFn run) {
  registry()[name] = {name, summary, run};
}

int run_verb(const std::string& command, const std::string& description, const VerbTable& verbs,
             const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0] == "--help" || argv[0] == "-h") {
    std::ostream& out = argv.empty() ? std::cerr : std::cout;
    out << "usage: pacml " << command << " <verb> [options]\n\n" << description << "\n\nverbs:\n";
    for (const auto& [name, verb] : verbs) out << "  " << name << "  " << verb.summary << "\n";
    out << "\n'pacml " << command << " <verb> --help' describes a verb.\n";
    return argv.empty() ? 2 : 0;
  }
  std::vector<std::string> names, rest;
  std::vector<CommandFn> runs;
  for (const auto& [name, verb] : verbs) names.push_back(name), runs.push_back(verb.run);
  return runs[parse_subcommand(names, "verb", argv, rest)](rest);
}

std::vector<CommandInfo> commands() {
  std::vector<CommandInfo> list;
  for (const auto& [name, info] : registry()) list.push_back(info);
  return list;
}

}  // namespace pacml::cli

int main(int argc, char** argv) {
  using namespace pacml::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_usage(args.empty() ? std::cerr : std::cout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "pacml " PACKAGE_VERSION "\n";
    return 0;
  }
  const std::string name = args[0];
  const std::vector<CommandInfo> all = commands();
  std::vector<std::string> names, rest;
  for (const CommandInfo& c : all) names.push_back(c.name);
  size_t chosen = 0;
  try {
    chosen = pacml::parse_subcommand(names, "command", args, rest);
  } catch (const pacml::InputError& e) {
    std::cerr << "pacml: " << e.what() << "\n\n";
    print_usage(std::cerr);
    return 2;
  }
  try {
    return all[chosen].run(rest);
  } catch (const pacml::InputError& e) {
    std::cerr << "pacml " << name << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "pacml " << name << ": internal error: " << e.what() << "\n";
    return 1;
  }
}
