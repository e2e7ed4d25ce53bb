//===- LimitsTextTest.cpp - Checked size arithmetic and escaped text ------===//
//
// The helpers issue 19 put between untrusted input and the rest: products of
// sizes that report overflow instead of wrapping, and text that cannot break
// the one-line error contract or drive the user's terminal.
//
//===----------------------------------------------------------------------===//

#include "snow/support/Limits.h"
#include "snow/support/Text.h"
#include <gtest/gtest.h>

using namespace snow;

TEST(CheckedMath, ProductsReportOverflow) {
  EXPECT_EQ(checkedMul(1ull << 32, 1ull << 31), 1ull << 63);
  EXPECT_FALSE(checkedMul(1ull << 32, 1ull << 32));
  EXPECT_FALSE(checkedAdd(UINT64_MAX, 1));
  EXPECT_EQ(checkedProduct({65536, 65536, 65536}), 1ull << 48);
  EXPECT_FALSE(checkedProduct({1ull << 40, 1ull << 40}));
  EXPECT_EQ(checkedProduct({}), 1u);
  EXPECT_EQ(saturatingProduct({1ull << 40, 1ull << 40, 0}), UINT64_MAX)
      << "saturation is sticky: an overflow on the way is never multiplied back to 0";
  EXPECT_EQ(saturatingProduct({3, 5}), 15u);
}

TEST(CheckedMath, SignedProductsSaturate) {
  EXPECT_EQ(saturatingProductSigned({-1, 4, 8}), -32);
  EXPECT_EQ(saturatingProductSigned({int64_t(1) << 62, int64_t(1) << 62, -1}), INT64_MAX);
  EXPECT_EQ(saturatingProductSigned({INT64_MIN, -1}), INT64_MAX);
  EXPECT_FALSE(checkedMulSigned(INT64_MAX, 2));
}

TEST(CheckedMath, CapsHaveTheirDocumentedDefaults) {
  // The test environment sets no SNOW_MAX_* variable.
  EXPECT_EQ(maxActivationValues(), uint64_t(1) << 26);
  EXPECT_EQ(maxSimBytes(), uint64_t(2) << 30);
}

TEST(EscapeUntrusted, ControlBytesAndTerminalEscapesAreShownNotSent) {
  EXPECT_EQ(escapeUntrusted("plain text, 1 × 2 ≤ 3"), "plain text, 1 × 2 ≤ 3");
  EXPECT_EQ(escapeUntrusted("\x1b]0;pwned\x07"), "\\x1b]0;pwned\\x07");
  EXPECT_EQ(escapeUntrusted("a\nb\tc\rd\x7f"), "a\\x0ab\\x09c\\x0dd\\x7f");
  EXPECT_EQ(escapeUntrusted(llvm::StringRef("a\0b", 3)), "a\\x00b");
  // C1 controls (CSI is U+009B) in UTF-8, and bytes that are not UTF-8.
  EXPECT_EQ(escapeUntrusted("\xc2\x9b"
                            "31m"),
            "\\u009b31m");
  EXPECT_EQ(escapeUntrusted("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(escapeUntrusted("\xe2\x82"), "\\xe2\\x82") << "a cut multi-byte sequence";
  EXPECT_EQ(escapeUntrusted("\xc0\xaf"), "\\xc0\\xaf") << "an overlong encoding";
}

TEST(EscapeUntrusted, LongTextIsCutWithACount) {
  std::string Long(5000, 'n');
  std::string E = escapeUntrusted(Long, 100);
  EXPECT_EQ(E, std::string(100, 'n') + "... (4900 more bytes)");
  EXPECT_EQ(escapeUntrusted("short", 100), "short");
}
