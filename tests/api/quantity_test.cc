#include "api/quantity.h"

#include <gtest/gtest.h>

#include <limits>

namespace hpa::api {
namespace {

struct MilliCase {
  const char* text;
  std::int64_t milli;
  const char* canonical;
};

// Prints the case by its text (gtest would dump the struct's bytes).
void PrintTo(const MilliCase& c, std::ostream* os) { *os << '"' << c.text << '"'; }

class QuantityMilli : public ::testing::TestWithParam<MilliCase> {};

TEST_P(QuantityMilli, ParsesRoundsAndPrints) {
  const auto& c = GetParam();
  auto q = Quantity::parse(c.text);
  ASSERT_TRUE(q.ok()) << c.text << ": " << q.error().message;
  EXPECT_EQ(q->milliValue(), c.milli) << c.text;
  EXPECT_EQ(q->toString(), c.canonical) << c.text;
}

INSTANTIATE_TEST_SUITE_P(
    Spec, QuantityMilli,
    ::testing::Values(
        MilliCase{"109403u", 110, "109403u"}, MilliCase{"96343278n", 97, "96343278n"},
        MilliCase{"587624Ki", 601726976000, "587624Ki"}, MilliCase{"1k", 1000000, "1k"},
        MilliCase{"500m", 500, "500m"}, MilliCase{"1.5", 1500, "1500m"},
        MilliCase{"2e3", 2000000, "2e3"}, MilliCase{"0.1", 100, "100m"}, MilliCase{"1n", 1, "1n"},
        MilliCase{"100Mi", 104857600000, "100Mi"}, MilliCase{"0", 0, "0"},
        MilliCase{"-1.5m", -2, "-1500u"}, MilliCase{"+5", 5000, "5"},
        MilliCase{"1.5Gi", 1610612736000, "1536Mi"}, MilliCase{"0.0000000001", 1, "1n"},
        MilliCase{"1E-3", 1, "1e-3"}, MilliCase{"1e+3", 1000000, "1e3"}, MilliCase{"5.", 5000, "5"},
        MilliCase{".5", 500, "500m"},
        MilliCase{"1E", std::numeric_limits<std::int64_t>::max(), "1E"},
        MilliCase{"1000Ki", 1024000000, "1000Ki"}, MilliCase{"512Ki", 524288000, "512Ki"},
        MilliCase{"1023", 1023000, "1023"}, MilliCase{"007", 7000, "7"}));

TEST(Quantity, RejectsWhatTheApiServerRejects) {
  for (const char* bad :
       {"", "K", "1K", "1mi", "1 m", "--1", "1e", "1.2.3", "abc", "1Ki1", "1e3.5", "1Mi-"}) {
    auto q = Quantity::parse(bad);
    EXPECT_FALSE(q.ok()) << "'" << bad << "' parsed as " << (q.ok() ? q->toString() : "");
  }
}

TEST(Quantity, HugeInputsSaturateInsteadOfOverflowing) {
  auto big = Quantity::parse("123456789012345678901234567890123456789012345678901234567890");
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->milliValue(), std::numeric_limits<std::int64_t>::max());
  auto exp = Quantity::parse("1e999999");
  ASSERT_TRUE(exp.ok());
  EXPECT_EQ(exp->value(), std::numeric_limits<std::int64_t>::max());
  auto tiny = Quantity::parse("-1e-999999");
  ASSERT_TRUE(tiny.ok());
  EXPECT_EQ(tiny->milliValue(), -1);  // rounded up in magnitude to a nano unit, then to a milli
  auto binary = Quantity::parse("9999999Ei");
  ASSERT_TRUE(binary.ok());
  EXPECT_EQ(binary->value(), std::numeric_limits<std::int64_t>::max());  // capped at 2^63-1
}

// Fuzz finding (quantity_fuzz): "600e1000" normalized to 6e1002, past the exponent limit, and
// printed as text that parsed back to a different value.
TEST(Quantity, SaturatedValuesPrintAndParseBackTheSame) {
  for (const char* text :
       {"600e1000", "-600e1000", "60172690.00000e+100110070", "1e1000", "10e999"}) {
    auto q = Quantity::parse(text);
    ASSERT_TRUE(q.ok()) << text;
    auto again = Quantity::parse(q->toString());
    ASSERT_TRUE(again.ok()) << text << " printed as " << q->toString();
    EXPECT_EQ(*again, *q) << text << " printed as " << q->toString();
    EXPECT_EQ(again->toString(), q->toString()) << text;
    EXPECT_EQ(q->milliValue(), q->sign() > 0 ? std::numeric_limits<std::int64_t>::max()
                                             : std::numeric_limits<std::int64_t>::min());
  }
  EXPECT_EQ(*Quantity::parse("600e1000"), *Quantity::parse("1e2000"));  // both saturated
}

// Fuzz finding (quantity_fuzz): "-9012347678900100Ki" is below -2^63; only positive binary-SI
// amounts were capped, and printing the negative one overflowed int64 into "9002050830581884Ki".
// The API server caps the magnitude, sign kept.
TEST(Quantity, NegativeBinaryAmountsAreCappedLikePositiveOnes) {
  auto q = Quantity::parse("-9012347678900100Ki");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->value(), -std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(q->toString(), "-9223372036854775807");
  EXPECT_EQ(*Quantity::parse(q->toString()), *q);
  EXPECT_EQ(*Quantity::parse("-9999999Ei"), *q);
  EXPECT_EQ(Quantity::parse("-8Ei")->toString(), "-9223372036854775807");
  EXPECT_EQ(Quantity::parse("-7Ei")->toString(), "-7Ei");
}

TEST(Quantity, ComparesByValueAcrossFormats) {
  EXPECT_EQ(*Quantity::parse("1k"), *Quantity::parse("1000"));
  EXPECT_EQ(*Quantity::parse("1Ki"), *Quantity::parse("1024"));
  EXPECT_LT(*Quantity::parse("999m"), *Quantity::parse("1"));
  EXPECT_LT(*Quantity::parse("-2"), *Quantity::parse("-1"));
  EXPECT_GT(*Quantity::parse("1.0001"), *Quantity::parse("1"));
  EXPECT_LT(*Quantity::parse("0"), *Quantity::parse("1n"));
}

TEST(Quantity, FormatsWrittenValuesCanonically) {
  EXPECT_EQ(Quantity::fromMilli(250).toString(), "250m");
  EXPECT_EQ(Quantity::fromMilli(1000).toString(), "1");
  EXPECT_EQ(Quantity::fromMilli(1500000).toString(), "1500");
  EXPECT_EQ(Quantity::fromMilli(2000000).toString(), "2k");
  EXPECT_EQ(Quantity::fromMilli(601726976000, QuantityFormat::BinarySI).toString(), "587624Ki");
  EXPECT_EQ(Quantity::fromMilli(1000, QuantityFormat::BinarySI).toString(), "1");
  EXPECT_EQ(Quantity::fromMilli(601726976500, QuantityFormat::BinarySI).toString(),
            "601726976500m");
  EXPECT_EQ(Quantity::fromMilli(104857600000, QuantityFormat::BinarySI).toString(), "100Mi");
}

TEST(Quantity, ApproximateFloatUsesTheDecimalForm) {
  EXPECT_DOUBLE_EQ(Quantity::parse("0.05")->asApproximateFloat(), 0.05);
  EXPECT_DOUBLE_EQ(Quantity::parse("50m")->asApproximateFloat(), 0.05);
  EXPECT_DOUBLE_EQ(Quantity::parse("1Ki")->asApproximateFloat(), 1024.0);
}

}  // namespace
}  // namespace hpa::api
