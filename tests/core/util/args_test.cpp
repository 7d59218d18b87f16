// The options layer (core/util/args.h): values, defaults and flags as declared,
// and a look-up the command never declared is a bug that throws instead of
// reading as "not given".
#include "core/util/args.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "core/util/error.h"

namespace pacml {
namespace {

TEST(Args, GivesValuesDefaultsAndFlagsAsDeclared) {
  Args args("pacml test [options]", "a test command");
  args.option("graph", "FILE", "a graph").option("steps", "N", "steps", "10").flag("json", "JSON");
  ASSERT_TRUE(args.parse({"--graph=g.yaml", "--json"}));
  EXPECT_TRUE(args.has("graph"));
  EXPECT_EQ(args.get("graph"), "g.yaml");
  EXPECT_FALSE(args.has("steps"));
  EXPECT_EQ(args.get_long("steps", 1, 100), 10);
  EXPECT_TRUE(args.is_set("json"));
  EXPECT_EQ(args.maybe("steps"), std::optional<std::string>("10"));
}

TEST(Args, AnUndeclaredLookUpThrows) {
  Args args("pacml test [options]", "a test command");
  args.option("graph", "FILE", "a graph").flag("json", "JSON");
  ASSERT_TRUE(args.parse({}));
  EXPECT_THROW(args.get("grpah"), std::logic_error);
  EXPECT_THROW(args.has("grpah"), std::logic_error);
  EXPECT_THROW(args.maybe("grpah"), std::logic_error);
  EXPECT_THROW(args.is_set("jsn"), std::logic_error);
}

TEST(Args, AFlagLookedUpAsAnOptionOrTheReverseThrows) {
  Args args("pacml test [options]", "a test command");
  args.option("graph", "FILE", "a graph").flag("json", "JSON");
  ASSERT_TRUE(args.parse({"--json"}));
  EXPECT_THROW(args.get("json"), std::logic_error);
  EXPECT_THROW(args.is_set("graph"), std::logic_error);
}

TEST(Args, UnknownOptionsAreTheUsersError) {
  Args args("pacml test [options]", "a test command");
  args.option("graph", "FILE", "a graph");
  EXPECT_THROW(args.parse({"--grph", "x"}), InputError);
}

}  // namespace
}  // namespace pacml
