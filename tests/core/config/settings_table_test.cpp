// One declaration per configuration key (core/config/settings_table.h): the
// reads, the unknown-key check and the docs table all follow it.
#include "core/config/settings_table.h"

#include <gtest/gtest.h>

#include "core/util/error.h"
#include "core/util/numbers.h"

namespace pacml {
namespace {

const SettingsTable& table() {
  static const SettingsTable t(
      "test key",
      {SettingKey("count", SettingType::kInteger, "how many").range(1, 8).defaults_to("2"),
       SettingKey("speed", SettingType::kNumber, "how fast").range(1e3, 1e6, "bytes/s"),
       SettingKey("mode", SettingType::kChoice, "which way").one_of({"up", "down"}),
       SettingKey("depth", SettingType::kNumber, "ramp only").range(0, 1).only_with("kind: deep")});
  return t;
}

std::string error_of(const std::string& yaml, const std::string& key,
                     const std::string& active = "") {
  try {
    const YAML::Node root = YAML::Load(yaml);
    table().check_known(root, "t.yaml", active);
    if (key == "count") table().integer(root, "t.yaml", key);
    if (key == "speed") table().number(root, "t.yaml", key);
    if (key == "mode") table().choice(root, "t.yaml", key);
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

TEST(SettingsTable, ReadsWithTheDeclaredTypeRangeAndUnit) {
  const YAML::Node root = YAML::Load("count: 3\nspeed: 2e4\nmode: down\n");
  EXPECT_EQ(table().integer(root, "t.yaml", "count"), 3);
  EXPECT_EQ(table().number(root, "t.yaml", "speed"), 2e4);
  EXPECT_EQ(table().choice(root, "t.yaml", "mode"), "down");
  EXPECT_EQ(error_of("count: 9\n", "count"), "t.yaml:1: count must be between 1 and 8, got '9'");
  EXPECT_EQ(
      error_of("speed: 20\n", "speed"),
      "t.yaml:1: speed = 20 is outside the plausible range [1000, 1e6] bytes/s (a unit slip?)");
  EXPECT_EQ(error_of("speed: -5\n", "speed"), "t.yaml:1: speed must not be negative: -5");
  EXPECT_EQ(error_of("mode: sideways\n", "mode"),
            "t.yaml:1: mode must be one of 'up', 'down', got 'sideways'");
  EXPECT_EQ(error_of("count: 1\n", "speed"), "t.yaml:1: missing 'speed'");
}

TEST(SettingsTable, UnknownKeysAndKeysOfAnotherCaseNameTheirLine) {
  EXPECT_EQ(error_of("count: 1\ncuont: 2\n", ""),
            "t.yaml:2: unknown test key 'cuont'; known: count, speed, mode");
  EXPECT_EQ(error_of("depth: 0.5\n", "", "kind: shallow"),
            "t.yaml:1: 'depth' applies only with kind: deep, not with kind: shallow");
  EXPECT_EQ(error_of("depth: 0.5\n", "", "kind: deep"), "");
  EXPECT_EQ(error_of("count: 1\nspeed: 2e4\ncount: 3\n", ""),
            "t.yaml:3: 'count' is given twice (first at t.yaml:1)");
}

TEST(SettingsTable, AKeyReadButNeverDeclaredIsAProgrammingError) {
  EXPECT_THROW(table().key("colour"), std::logic_error);
}

TEST(SettingsTable, MarkdownListsEveryKeyWithRangeDefaultAndCase) {
  const std::string md = table().markdown();
  EXPECT_NE(md.find("| `count` | integer | 1 – 8 | `2` | how many |"), std::string::npos) << md;
  EXPECT_NE(md.find("| `speed` | number | 1000 – 1e6 bytes/s |  | how fast |"), std::string::npos);
  EXPECT_NE(md.find("| `mode` | choice | `up`, `down` |  | which way |"), std::string::npos);
  EXPECT_NE(md.find("ramp only (kind: deep only) |"), std::string::npos);
}

TEST(ExactNumberText, ShortestTextThatReadsBackExactly) {
  EXPECT_EQ(exact_number_text(200), "200");
  EXPECT_EQ(exact_number_text(1.6e12), "1.6e12");
  EXPECT_EQ(exact_number_text(5e-9), "5e-9");
  EXPECT_EQ(exact_number_text(0.1), "0.1");
  EXPECT_EQ(exact_number_text(-2.5), "-2.5");
  for (double v : {0.1 + 0.2, 1.0 / 3, 123456789.123, 6.02214076e23, 1e-300})
    EXPECT_EQ(std::strtod(exact_number_text(v).c_str(), nullptr), v) << exact_number_text(v);
}

}  // namespace
}  // namespace pacml
