// pacml — command-line entry point. Dispatches `pacml <command> ...` to the
// command registered under that name (see command.h).
#include <algorithm>
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
         "pacml decides how far to partition a distributed training job on a RAMP\n"
         "optical cluster (PAC-ML, arXiv 2301.13799). Commands:\n\n";
  for (const CommandInfo& c : commands()) {
    out << "  " << c.name;
    out << std::string(c.name.size() < 12 ? 12 - c.name.size() : 1, ' ') << c.summary << "\n";
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
  const auto it = verbs.find(argv[0]);
  if (it == verbs.end()) {
    std::vector<std::string> names;
    for (const auto& verb : verbs) names.push_back(verb.first);
    throw InputError(
        "", "unknown verb '" + argv[0] + "'" + did_you_mean(argv[0], names) + " (see --help)");
  }
  return it->second.run(std::vector<std::string>(argv.begin() + 1, argv.end()));
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
  auto all = commands();
  auto it =
      std::find_if(all.begin(), all.end(), [&](const CommandInfo& c) { return c.name == name; });
  if (it == all.end()) {
    std::vector<std::string> names;
    for (const CommandInfo& c : all) names.push_back(c.name);
    std::cerr << "pacml: unknown command '" << name << "'" << pacml::did_you_mean(name, names)
              << "\n\n";
    print_usage(std::cerr);
    return 2;
  }
  args.erase(args.begin());
  try {
    return it->run(args);
  } catch (const pacml::InputError& e) {
    std::cerr << "pacml " << name << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "pacml " << name << ": internal error: " << e.what() << "\n";
    return 1;
  }
}
