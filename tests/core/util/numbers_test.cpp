// core/util/numbers.h: the texts of numbers that must read back exactly.
#include "core/util/numbers.h"

#include <gtest/gtest.h>

#include <string>

namespace pacml {
namespace {

TEST(EngineeringNumberText, PutsTheExponentOnAMultipleOfThreeAndReadsBack) {
  EXPECT_EQ(engineering_number_text(1.5e-7), "150e-9");
  EXPECT_EQ(engineering_number_text(2e-5), "20e-6");
  EXPECT_EQ(engineering_number_text(3e-9), "3e-9");
  EXPECT_EQ(engineering_number_text(-1.25e-8), "-12.5e-9");
  EXPECT_EQ(engineering_number_text(1.6e12), engineering_number_text(16e11));
  EXPECT_EQ(engineering_number_text(0.5), "0.5");
  for (double v : {1.5e-7, 2e-5, -1.25e-8, 1.6e12, 4.2e13, 7e-10, 123456789e-15})
    EXPECT_EQ(std::stod(engineering_number_text(v)), v) << engineering_number_text(v);
}

}  // namespace
}  // namespace pacml
