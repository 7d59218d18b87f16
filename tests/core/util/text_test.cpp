// core/util/text.h: split_fields is the one splitter of delimited lines
// (trace readers, Slurm syntax, the plugin's gres strings, throughput
// tables), so what each of them relies on is pinned here.
#include "core/util/text.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace pacml {
namespace {

using Fields = std::vector<std::string>;

TEST(SplitFields, KeepsEveryFieldEmptyOnesIncluded) {
  EXPECT_EQ(split_fields("a,b,c", ','), (Fields{"a", "b", "c"}));
  EXPECT_EQ(split_fields("a,,b", ','), (Fields{"a", "", "b"}));
  // A separator at either end opens an empty field (a CSV row with an
  // empty last cell, a Slurm "gpu:" with no count).
  EXPECT_EQ(split_fields(",a", ','), (Fields{"", "a"}));
  EXPECT_EQ(split_fields("a,", ','), (Fields{"a", ""}));
  EXPECT_EQ(split_fields(",", ','), (Fields{"", ""}));
}

TEST(SplitFields, AnEmptyLineIsOneEmptyField) {
  EXPECT_EQ(split_fields("", ','), Fields{""});
  EXPECT_EQ(split_fields("abc", ','), Fields{"abc"});
}

TEST(SplitFields, NeitherTrimsNorMergesBlanks) {
  EXPECT_EQ(split_fields(" a , b ", ','), (Fields{" a ", " b "}));
  EXPECT_EQ(split_fields("a  b", ' '), (Fields{"a", "", "b"}));
  EXPECT_EQ(split_fields("1|x|", '|'), (Fields{"1", "x", ""}));
}

}  // namespace
}  // namespace pacml
