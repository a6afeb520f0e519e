#include "domain/money/token_amount.hpp"

#include <gtest/gtest.h>

#include <random>

namespace duepay::domain::money {
namespace {

const std::string kMax =
    "115792089237316195423570985008687907853269984665640564039457584007913129639935";  // 2^256-1
const std::string kMaxPlusOne =
    "115792089237316195423570985008687907853269984665640564039457584007913129639936";

void expect_rejected(std::string_view text, std::string_view message_part) {
    auto r = parse_token_amount(text);
    ASSERT_FALSE(r.ok()) << "accepted: '" << text << "'";
    EXPECT_EQ(r.error().code, "invalid_amount");
    EXPECT_NE(r.error().message.find(message_part), std::string::npos)
        << "'" << text << "' -> " << r.error().message;
}

TEST(TokenAmount, ParsesCanonicalIntegers) {
    EXPECT_EQ(parse_token_amount("0")->value, 0);
    EXPECT_EQ(parse_token_amount("1")->value, 1);
    EXPECT_EQ(parse_token_amount("1000000")->value, 1000000);
    // 19 and 20 digits straddle the first 10^19 chunk boundary.
    EXPECT_EQ(parse_token_amount("9999999999999999999")->value, uint256("9999999999999999999"));
    EXPECT_EQ(parse_token_amount("10000000000000000000")->value, uint256("10000000000000000000"));
    EXPECT_EQ(parse_token_amount("18446744073709551616")->value, uint256(1) << 64);
    EXPECT_EQ(parse_token_amount(kMax)->value, ~uint256(0));
}

TEST(TokenAmount, RejectsEachDefectWithItsOwnMessage) {
    expect_rejected("", "empty");
    expect_rejected("-1", "negative");
    expect_rejected("+1", "sign");
    expect_rejected(" 1", "whitespace");
    expect_rejected("1 ", "whitespace");
    expect_rejected("1\t0", "whitespace");
    expect_rejected("1.5", "fraction");
    expect_rejected("1.0", "fraction");
    expect_rejected("1e6", "exponent");
    expect_rejected("1E6", "exponent");
    expect_rejected("0x10", "digits only");
    expect_rejected("12a", "digits only");
    expect_rejected("007", "leading zeros");
    expect_rejected("00", "leading zeros");
    expect_rejected(std::string(79, '1'), "78 digits");
    expect_rejected(kMaxPlusOne, "2^256-1");
    expect_rejected(
        "999999999999999999999999999999999999999999999999999999999999999999999999999999",
        "2^256-1");
}

TEST(TokenAmount, ChargeAmountRejectsZero) {
    auto r = parse_charge_amount("0");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "invalid_amount");
    EXPECT_EQ(r.error().message, "amount must be greater than zero");
    EXPECT_EQ(parse_charge_amount("1")->value, 1);
    EXPECT_FALSE(parse_charge_amount("-0").ok());
}

TEST(TokenAmount, ToStringIsCanonical) {
    EXPECT_EQ(to_string(TokenAmount{0}), "0");
    EXPECT_EQ(to_string(TokenAmount{1000000}), "1000000");
    EXPECT_EQ(to_string(TokenAmount{uint256("10000000000000000000")}), "10000000000000000000");
    EXPECT_EQ(to_string(TokenAmount{uint256("100000000000000000000000000000000000000")}),
              "100000000000000000000000000000000000000");
    EXPECT_EQ(to_string(TokenAmount{~uint256(0)}), kMax);
}

TEST(TokenAmount, RoundTripsRandomValuesAgainstBoost) {
    const std::uint64_t seed = 20261121;
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 5000; ++i) {
        uint256 v = 0;
        const int limbs = 1 + static_cast<int>(rng() % 4);
        for (int k = 0; k < limbs; ++k) v = (v << 64) | rng();
        v >>= static_cast<unsigned>(rng() % 64);
        const std::string text = to_string(TokenAmount{v});
        ASSERT_EQ(text, boost::multiprecision::cpp_int(v).str()) << "seed " << seed;
        auto back = parse_token_amount(text);
        ASSERT_TRUE(back.ok()) << text;
        ASSERT_EQ(back->value, v) << "seed " << seed;
    }
}

TEST(TokenAmount, FormatUnitsIsExactDecimalText) {
    EXPECT_EQ(format_units(TokenAmount{1250000}, 6), "1.25");
    EXPECT_EQ(format_units(TokenAmount{1000000}, 6), "1");
    EXPECT_EQ(format_units(TokenAmount{1}, 6), "0.000001");
    EXPECT_EQ(format_units(TokenAmount{0}, 6), "0");
    EXPECT_EQ(format_units(TokenAmount{700000}, 6), "0.7");
    EXPECT_EQ(format_units(TokenAmount{123}, 0), "123");
    // 2^256-1 at 18 decimals: every digit kept (a double would keep 17).
    const TokenAmount max{~uint256(0)};
    EXPECT_EQ(format_units(max, 18),
              "115792089237316195423570985008687907853269984665640564039457.584007913129639935");
    EXPECT_EQ(format_units(TokenAmount{uint256("100000000000000000001")}, 18),
              "100.000000000000000001");
}

// append_units writes after what `out` holds already, and the same text as the definition spelled
// out with whole strings (the digits, split at `decimals`, the fraction's zeros dropped) for
// values of every size and decimals from 0 to 40.
TEST(TokenAmount, AppendUnitsAppendsTheSameTextAsTheDigitsSplit) {
    const auto spelled = [](const uint256& v, unsigned decimals) {
        std::string digits = boost::multiprecision::cpp_int(v).str();
        if (digits.size() <= decimals) digits.insert(0, decimals + 1 - digits.size(), '0');
        const std::string whole = digits.substr(0, digits.size() - decimals);
        std::string fraction = digits.substr(digits.size() - decimals);
        while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
        return fraction.empty() ? whole : whole + "." + fraction;
    };
    std::mt19937_64 rng(7);
    for (int i = 0; i < 4000; ++i) {
        uint256 v = 0;
        const int limbs = 1 + i % 4;
        for (int k = 0; k < limbs; ++k) v = (v << 64) | rng();
        v >>= static_cast<unsigned>(rng() % 256);
        if (i % 5 == 0) v *= 1000;  // zeros at the end of the fraction
        const auto decimals = static_cast<unsigned>(i % 41);
        std::string out = "<td>";
        append_units(out, v, decimals);
        ASSERT_EQ(out, "<td>" + spelled(v, decimals)) << "value " << v << " decimals " << decimals;
    }
}

}  // namespace
}  // namespace duepay::domain::money
