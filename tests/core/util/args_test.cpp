// The options layer (core/util/args.h): CLI11 fills the members each option is
// bound to, checked on the way; what was not given keeps its default; bad
// values, unknown options and contradictions are the user's InputError, named.
#include "core/util/args.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "core/util/error.h"

namespace pacml {
namespace {

struct TestOptions {
  std::optional<std::string> graph;
  std::optional<std::string> model;
  long steps = 10;
  std::optional<int> gpus;
  double beta = 0.5;
  std::string format = "native";
  bool json = false;
  std::string file;
};

void declare(Args& args, TestOptions& o) {
  args.bind("graph", "FILE", "a graph", o.graph)
      .bind("model", "NAME", "a zoo model", o.model)
      .excludes("model", "graph")
      .bind("steps", "N", "steps", o.steps, 1, 100)
      .bind("gpus", "K", "GPUs", o.gpus, 1, 64)
      .bind("beta", "F", "a fraction", o.beta)
      .bind_choice("format", {"native", "pipedream"}, "the format", o.format)
      .bind_flag("json", "JSON", o.json)
      .bind_positional("FILE", "a file", o.file, false);
}

std::string error_of(const std::vector<std::string>& argv) {
  Args args("pacml test [options]", "a test command");
  TestOptions o;
  declare(args, o);
  try {
    args.parse(argv);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Args, FillsTheBoundMembersAndKeepsTheDefaultsOfTheRest) {
  Args args("pacml test [options]", "a test command");
  TestOptions o;
  declare(args, o);
  ASSERT_TRUE(args.parse({"--graph=g.yaml", "--json", "--gpus", "8", "--beta", "0.25", "x.yaml"}));
  EXPECT_EQ(o.graph, std::optional<std::string>("g.yaml"));
  EXPECT_FALSE(o.model.has_value());
  EXPECT_EQ(o.steps, 10);
  EXPECT_EQ(o.gpus, std::optional<int>(8));
  EXPECT_EQ(o.beta, 0.25);
  EXPECT_EQ(o.format, "native");
  EXPECT_TRUE(o.json);
  EXPECT_EQ(o.file, "x.yaml");
  EXPECT_EQ(args.given(), (std::vector<std::string>{"beta", "gpus", "graph", "json"}));
}

TEST(Args, TheLastOfARepeatedOptionWins) {
  Args args("pacml test [options]", "a test command");
  TestOptions o;
  declare(args, o);
  ASSERT_TRUE(args.parse({"--steps", "3", "--steps", "4"}));
  EXPECT_EQ(o.steps, 4);
}

TEST(Args, BadValuesAreTheUsersErrorNamingTheOption) {
  EXPECT_NE(error_of({"--steps", "0"}).find("--steps"), std::string::npos);
  EXPECT_NE(error_of({"--steps", "1e3"}).find("--steps"), std::string::npos);
  EXPECT_NE(error_of({"--gpus", "65"}).find("between 1 and 64"), std::string::npos);
  EXPECT_NE(error_of({"--beta", "nan"}).find("--beta"), std::string::npos);
  EXPECT_EQ(error_of({"--format", "xml"}), "--format: must be one of native, pipedream; got 'xml'");
  EXPECT_NE(error_of({"--graph", "g", "--model", "m"}).find("not both"), std::string::npos);
  EXPECT_NE(error_of({"--json=no"}).find("is a flag and takes no value"), std::string::npos);
  EXPECT_NE(error_of({"--steps"}).find("needs a value"), std::string::npos);
}

TEST(Args, UnknownOptionsAndExtraArgumentsAreTheUsersError) {
  EXPECT_NE(error_of({"--grph", "x"}).find("did you mean '--graph'"), std::string::npos);
  EXPECT_NE(error_of({"-json"}).find("options start with '--'"), std::string::npos);
  EXPECT_NE(error_of({"a.yaml", "b.yaml"}).find("unexpected argument 'b.yaml'"), std::string::npos);
}

TEST(Args, HelpShowsEachOptionWithTheDefaultItsMemberHolds) {
  Args args("pacml test [options]", "a test command");
  TestOptions o;
  declare(args, o);
  const std::string help = args.help();
  EXPECT_NE(help.find("--steps N"), std::string::npos);
  EXPECT_NE(help.find("(default: 10)"), std::string::npos);
  EXPECT_NE(help.find("--format native|pipedream"), std::string::npos);
  EXPECT_NE(help.find("(default: 0.5)"), std::string::npos);
}

TEST(Args, ASubcommandTakesTheRestOfTheCommandLineUnparsed) {
  const std::vector<std::string> verbs = {"export", "info", "zoo"};
  std::vector<std::string> rest;
  EXPECT_EQ(parse_subcommand(verbs, "verb", {"info", "--json", "g.txt", "--help"}, rest), 1u);
  EXPECT_EQ(rest, (std::vector<std::string>{"--json", "g.txt", "--help"}));
  EXPECT_EQ(parse_subcommand(verbs, "verb", {"zoo"}, rest), 2u);
  EXPECT_TRUE(rest.empty());
  try {
    parse_subcommand(verbs, "verb", {"infoo", "--json"}, rest);
    FAIL() << "an unknown verb was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "unknown verb 'infoo' (did you mean 'info'?) (see --help)");
  }
  EXPECT_THROW(parse_subcommand(verbs, "verb", {"--json", "info"}, rest), InputError);
}

}  // namespace
}  // namespace pacml
