//===- CheckedIntTest.cpp - 64-bit counts that cannot wrap
//-----------------===//

#include "snapflow/Support/CheckedInt.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <limits>
#include <vector>

using snapflow::CheckedInt;

namespace {
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
} // namespace

// In range, CheckedInt computes what int64_t computes.
TEST(CheckedInt, ExactInRange) {
  CheckedInt x = CheckedInt(6) * 7 + 8 - 50;
  EXPECT_EQ(x.get(), 0);
  EXPECT_EQ((CheckedInt(-9) / 2).get(), -4);
  EXPECT_EQ(ceilDiv(CheckedInt(10), 4).get(), 3);
  EXPECT_EQ(ceilDiv(CheckedInt(12), 4).get(), 3);
  EXPECT_EQ(snapflow::checkedProduct(std::vector<int64_t>{2, 3, 7}).get(), 42);
}

// Each operation that leaves the int64_t range is caught, at the boundary.
TEST(CheckedInt, OverflowAtTheBoundary) {
  EXPECT_EQ((CheckedInt(kMax - 1) + 1).get(), kMax);
  EXPECT_TRUE((CheckedInt(kMax) + 1).overflowed());
  EXPECT_TRUE((CheckedInt(kMin) - 1).overflowed());
  // 2^32 x 2^31 = 2^63 is one past the largest int64_t.
  EXPECT_TRUE((CheckedInt(int64_t(1) << 32) * (int64_t(1) << 31)).overflowed());
  EXPECT_EQ((CheckedInt(int64_t(1) << 32) * ((int64_t(1) << 31) - 1)).get(),
            kMax - ((int64_t(1) << 32) - 1));
  EXPECT_TRUE((CheckedInt(kMin) / -1).overflowed());
  EXPECT_TRUE((CheckedInt(5) / 0).overflowed());
}

// Once overflowed, every later result is overflowed: one check at the end
// of an expression covers all its steps, even if later steps would
// "undo" the overflow.
TEST(CheckedInt, OverflowIsSticky) {
  CheckedInt x = CheckedInt(kMax) * 2;
  EXPECT_TRUE((x / 2).overflowed());
  EXPECT_TRUE((x - kMax).overflowed());
  EXPECT_TRUE((x * 0).overflowed());
  CheckedInt sum = 0;
  sum += x;
  sum += 1;
  EXPECT_TRUE(sum.overflowed());
  EXPECT_EQ(sum.get(), std::nullopt);
}

// Doubles convert only when finite and within range (a rate x a count).
TEST(CheckedInt, FromDouble) {
  EXPECT_EQ(CheckedInt::fromDouble(2.5).get(), 3);
  EXPECT_EQ(CheckedInt::fromDouble(-2.5).get(), -3);
  EXPECT_TRUE(CheckedInt::fromDouble(9.3e18).overflowed());
  EXPECT_TRUE(CheckedInt::fromDouble(9223372036854775808.0).overflowed());
  EXPECT_TRUE(CheckedInt::fromDouble(std::numeric_limits<double>::infinity())
                  .overflowed());
  EXPECT_TRUE(CheckedInt::fromDouble(std::numeric_limits<double>::quiet_NaN())
                  .overflowed());
}
