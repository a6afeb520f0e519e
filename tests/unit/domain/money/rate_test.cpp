#include "domain/money/rate.hpp"

#include <gtest/gtest.h>

#include <random>

namespace duepay::domain::money {
namespace {

Rational rat(long long num, long long den) { return Rational::make(num, den).value(); }
FiatAmount usd(std::uint64_t minor) { return FiatAmount{FiatCurrency::USD, minor}; }
FiatAmount thb(std::uint64_t minor) { return FiatAmount{FiatCurrency::THB, minor}; }
uint256 convert(const FiatAmount& f, const Rational& r, unsigned dec, unsigned buf) {
    auto out = fiat_to_token_amount(f, r, dec, buf);
    EXPECT_TRUE(out.ok()) << out.error().message;
    return out.ok() ? out->value : uint256(0);
}

TEST(Rational, ReducesAndRejectsNonPositive) {
    EXPECT_EQ(rat(10, 4), rat(5, 2));
    EXPECT_EQ(rat(10, 4).num(), 5);
    EXPECT_EQ(rat(10, 4).den(), 2);
    EXPECT_EQ(Rational::make(0, 1).error().code, "invalid_rate");
    EXPECT_EQ(Rational::make(-1, 1).error().code, "invalid_rate");
    EXPECT_EQ(Rational::make(1, 0).error().code, "invalid_rate");
}

TEST(Rate, FromFeedAnswer) {
    // Chainlink-style USDT/USD answer 100010000 with 8 decimals = 1.0001.
    EXPECT_EQ(*rate_from_answer(100010000, 8), rat(10001, 10000));
    EXPECT_EQ(to_string(*rate_from_answer(100010000, 8)), "1.0001");
    EXPECT_EQ(to_string(*rate_from_answer(2850000, 8)), "0.0285");
    EXPECT_EQ(to_string(*rate_from_answer(3512, 0)), "3512");
    EXPECT_EQ(rate_from_answer(0, 8).error().code, "invalid_rate");
    EXPECT_EQ(rate_from_answer(-5, 8).error().code, "invalid_rate");
    EXPECT_EQ(rate_from_answer(1, 78).error().code, "invalid_rate");
}

TEST(Rate, ParsesAndPrintsExactly) {
    EXPECT_EQ(*parse_rate("35.12"), rat(3512, 100));
    EXPECT_EQ(*parse_rate("0.0285"), rat(285, 10000));
    EXPECT_EQ(*parse_rate("35.10"), rat(351, 10));  // value equality; prints as "35.1"
    EXPECT_EQ(to_string(*parse_rate("35.10")), "35.1");
    EXPECT_EQ(*parse_rate("10001/285"), rat(10001, 285));
    EXPECT_EQ(to_string(rat(1000, 3)), "1000/3");
    EXPECT_EQ(to_string(rat(1, 8)), "0.125");
    EXPECT_EQ(to_string(rat(1, 20)), "0.05");
    for (const char* text : {"35.12", "0.0285", "1000/3", "10001/285", "7", "0.125"})
        EXPECT_EQ(to_string(*parse_rate(text)), text);
    for (const char* bad : {"", "-1", "+1", "0", "0.0", "1e3", " 1", "1/0", "0/5", "1/", "/2", "01",
                            "1.", ".5", "abc", "1/-2"}) {
        auto r = parse_rate(bad);
        EXPECT_FALSE(r.ok()) << "accepted '" << bad << "'";
        if (!r.ok()) {
            EXPECT_EQ(r.error().code, "invalid_rate");
        }
    }
}

TEST(Rate, TextFormsBeyond64Bits) {
    // 1/2^40 = 0.0000000000009094947017729282379150390625 (scale 40: the big-integer path)
    EXPECT_EQ(to_string(Rational::make(1, BigInt(1) << 40).value()),
              "0.0000000000009094947017729282379150390625");
    EXPECT_EQ(to_string(*parse_rate("12345.6789012345678901234567891")),
              "12345.6789012345678901234567891");
    const BigInt big_num("123456789012345678901234567891");
    EXPECT_EQ(to_string(Rational::make(big_num, 3).value()), "123456789012345678901234567891/3");
    EXPECT_EQ(*parse_rate("123456789012345678901234567891/3"), Rational::make(big_num, 3).value());
}

TEST(Rate, RandomRationalsRoundTripThroughText) {
    std::mt19937_64 rng(11);
    for (int i = 0; i < 20000; ++i) {
        const BigInt num =
            BigInt(rng() % 1000000000000ULL + 1) * ((i % 3 == 0) ? BigInt(rng()) + 1 : BigInt(1));
        BigInt den = 1;
        // denominators of the forms 2^a 5^b (finite decimals) and with other factors
        for (unsigned k = rng() % 30; k > 0; --k) den *= (rng() % 2 ? 2 : 5);
        if (i % 4 == 0) den *= (rng() % 1000 + 1);
        const Rational r = Rational::make(num, den).value();
        const std::string text = to_string(r);
        auto back = parse_rate(text);
        ASSERT_TRUE(back.ok()) << text << ": " << back.error().message;
        ASSERT_EQ(*back, r) << text;
    }
}

TEST(Rate, CrossRateThbPerToken) {
    // usd_per_thb = 2850000 / 1e8 = 0.0285; usd_per_usdt = 100010000 / 1e8 = 1.0001
    // thb_per_usdt = 1.0001 / 0.0285 = 100010000 / 2850000 = 10001 / 285 (no finite decimal)
    const Rational r =
        fiat_per_token_via_usd(*rate_from_answer(100010000, 8), *rate_from_answer(2850000, 8));
    EXPECT_EQ(r, rat(10001, 285));
    EXPECT_EQ(to_string(r), "10001/285");
}

TEST(Conversion, HandCheckedTable) {
    // USD 10.00 at 1 USD/token, 6 decimals, no buffer: 10 * 10^6 = 10000000 exactly.
    EXPECT_EQ(convert(usd(1000), rat(1, 1), 6, 0), 10000000);
    // Buffer 50 bps: 10000000 * 10050 / 10000 = 10050000 exactly.
    EXPECT_EQ(convert(usd(1000), rat(1, 1), 6, 50), 10050000);
    // Buffer 10000 bps doubles: 20000000.
    EXPECT_EQ(convert(usd(1000), rat(1, 1), 6, 10000), 20000000);
    // Rate 0.999: 9.99 / 0.999 = 10 exactly -> 10000000, no rounding up on an exact result.
    EXPECT_EQ(convert(usd(999), rat(999, 1000), 6, 0), 10000000);
    // 10.00 / 0.999 * 10^6 = 10^10 / 999 = 10010010.01... -> ceil 10010011.
    EXPECT_EQ(convert(usd(1000), rat(999, 1000), 6, 0), 10010011);
    // Last unit: 0.03 USD at 3 USD/token, 2 decimals: 0.03 * 100 / 3 = 1 exactly -> 1.
    EXPECT_EQ(convert(usd(3), rat(3, 1), 2, 0), 1);
    // One cent over: 0.04 * 100 / 3 = 4/3 -> 2 (never 1).
    EXPECT_EQ(convert(usd(4), rat(3, 1), 2, 0), 2);
    // THB 350.00 at 10001/285 THB/USDT, 6 decimals, 100 bps:
    // 350 * 10^6 * 10100/10000 * 285/10001 = 100747500000 / 10001 = 10073742 rem 6258 -> 10073743.
    EXPECT_EQ(convert(thb(35000), rat(10001, 285), 6, 100), 10073743);
    // 18 decimals: USD 1234.56 at 2500.5 USD/token = 1234.56 * 10^18 * 2 / 5001
    // = 823040000000000000000 / 1667 = 493725254949010197.96... -> 493725254949010198.
    EXPECT_EQ(convert(usd(123456), rat(5001, 2), 18, 0), uint256("493725254949010198"));
}

TEST(Conversion, BoundaryAt2Pow256) {
    const uint256 max = ~uint256(0);
    // USD 1.00 at 1/(2^256-1) USD per token, 0 decimals: exactly 2^256-1, accepted.
    auto r = Rational::make(1, BigInt(max)).value();
    EXPECT_EQ(convert(usd(100), r, 0, 0), max);
    // One more unit of token per dollar: 2^256 does not fit -> error, not a wrap to 0.
    auto over = fiat_to_token_amount(usd(100), Rational::make(1, BigInt(max) + 1).value(), 0, 0);
    ASSERT_FALSE(over.ok());
    EXPECT_EQ(over.error().code, "amount_overflow");
    // Huge fiat at a tiny rate with 77 decimals overflows too.
    auto huge = fiat_to_token_amount(usd(99999999999999), *rate_from_answer(1, 77), 77, 10000);
    ASSERT_FALSE(huge.ok());
    EXPECT_EQ(huge.error().code, "amount_overflow");
}

TEST(Conversion, RejectsBadParameters) {
    EXPECT_EQ(fiat_to_token_amount(usd(100), rat(1, 1), 6, 10001).error().code, "invalid_buffer");
    EXPECT_EQ(fiat_to_token_amount(usd(100), rat(1, 1), 78, 0).error().code, "invalid_decimals");
}

// The one fiat rounding (docs/reports.md "Rounding"): units * rate * 100 / 10^decimals exactly,
// then to the nearest cent, a half away from zero. Expected values worked out by hand / with exact
// fractions, not by the code under test.
struct FiatCase {
    const char* units;
    unsigned decimals;
    const char* rate;
    const char* minor;  // format_minor_units of the result
    bool exact;
};
constexpr const char* kMax =
    "115792089237316195423570985008687907853269984665640564039457584007913129639935";
const FiatCase kFiatCases[] = {
    // An exact half cent goes away from zero (not to even: 0.025 -> 0.03); below it, toward zero.
    {"5", 3, "1", "0.01", false},
    {"-5", 3, "1", "-0.01", false},
    {"15", 3, "1", "0.02", false},
    {"25", 3, "1", "0.03", false},
    {"-25", 3, "1", "-0.03", false},
    {"4", 3, "1", "0.00", false},
    {"-4", 3, "1", "0.00", false},
    {"1000000", 6, "35.125", "35.13", false},
    {"-1000000", 6, "35.125", "-35.13", false},
    {"1000000", 6, "35.124", "35.12", false},
    {"-1000000", 6, "35.126", "-35.13", false},
    {"0", 6, "35.125", "0.00", true},
    {"1500000", 6, "35", "52.50", true},
    // Rates with no finite decimal (the dev feeds' THB per USDT).
    {"1250000", 6, "10001/278", "44.97", false},
    {"400000", 6, "10001/285", "14.04", false},
    // 18 decimals: a half cent in wei, one wei below it, one wei alone.
    {"2500000000000000000", 18, "3000.5", "7501.25", true},
    {"5000000000000000", 18, "1", "0.01", false},
    {"-5000000000000000", 18, "1", "-0.01", false},
    {"4999999999999999", 18, "1", "0.00", false},
    {"1", 18, "3000.5", "0.00", false},
    {"-1", 18, "3000.5", "0.00", false},
    // 0 decimals.
    {"7", 0, "0.015", "0.11", false},  // 10.5 satang
    {"-7", 0, "0.015", "-0.11", false},
    {"3", 0, "0.005", "0.02", false},  // 1.5 satang
    {"1", 0, "10001/285", "35.09", false},
    // The whole uint256 range, far beyond a double's precision, stays exact.
    {kMax, 0, "1",
     "115792089237316195423570985008687907853269984665640564039457584007913129639935.00", true},
    {"-115792089237316195423570985008687907853269984665640564039457584007913129639935", 0, "1",
     "-115792089237316195423570985008687907853269984665640564039457584007913129639935.00", true},
    {kMax, 18, "35.125", "4067197134460731364252930848430162763346108211380624811885947.64", false},
    {kMax, 6, "1/3", "38597363079105398474523661669562635951089994888546854679819194669304376.55",
     false},
};

TEST(FiatValue, RoundsToTheNearestCentHalfAwayFromZero) {
    for (const auto& c : kFiatCases) {
        SCOPED_TRACE(std::string(c.units) + " at " + c.rate + ", " + std::to_string(c.decimals) +
                     " decimals");
        const BigInt units(c.units);
        const auto value = fiat_value(units, c.decimals, parse_rate(c.rate).value());
        EXPECT_EQ(format_minor_units(value.minor_units), c.minor);
        EXPECT_EQ(value.exact, c.exact);
        // A refund is worth exactly minus the same payment.
        const auto mirrored = fiat_value(BigInt(-units), c.decimals, parse_rate(c.rate).value());
        EXPECT_EQ(mirrored.minor_units, BigInt(-value.minor_units));
        EXPECT_EQ(mirrored.exact, value.exact);
    }
}

// fiat_value takes machine integers where everything fits 64 bits (the numerator 128) and cpp_int
// elsewhere: on random amounts, rates and decimals on both sides of every bound (|units| and the
// rate's terms at 2^64, the numerator at 2^128, decimals at 19), it must agree with the formula
// worked out here in cpp_int, and format_minor_units with cpp_int's own digits.
TEST(FiatValue, MachineIntegersAgreeWithTheExactFormula) {
    std::mt19937_64 rng(20261128);
    const BigInt two64 = BigInt(1) << 64;
    auto pick = [&](int kind) -> BigInt {
        switch (kind) {
            case 0:
                return BigInt(rng() % 10'000'000'000ULL);
            case 1:
                return BigInt(rng());  // up to 2^64 - 1
            case 2:
                return two64 - 1 - BigInt(rng() % 3);
            case 3:
                return two64 + BigInt(rng() % 3);  // just past it
            default:
                return (BigInt(rng()) << 64) + BigInt(rng());
        }
    };
    auto pow10 = [](unsigned n) {
        BigInt p = 1;
        for (unsigned i = 0; i < n; ++i) p *= 10;
        return p;
    };
    int small_side = 0;
    for (int i = 0; i < 20000; ++i) {
        const BigInt magnitude = pick(static_cast<int>(rng() % 5));
        const bool negative = rng() % 2 == 0;
        const BigInt units = negative ? BigInt(-magnitude) : magnitude;
        BigInt num = pick(static_cast<int>(rng() % 5));
        BigInt den = pick(static_cast<int>(rng() % 5));
        if (num == 0) num = 1;
        if (den == 0) den = 1;
        const auto rate = Rational::make(num, den).value();
        const auto decimals = static_cast<unsigned>(rng() % 24);
        // The formula: |units| * num * 100 / (den * 10^decimals), half up, the sign put back.
        const BigInt n = magnitude * rate.num() * 100;
        const BigInt d = rate.den() * pow10(decimals);
        BigInt want = n / d;
        const BigInt rest = n % d;
        if (rest * 2 >= d) want += 1;
        if (negative) want = -want;
        if (magnitude < two64 && rate.num() < two64 && rate.den() < two64 && decimals <= 19 &&
            magnitude * rate.num() * 100 < (BigInt(1) << 128)) {
            ++small_side;
        }
        const auto got = fiat_value(units, decimals, rate);
        ASSERT_EQ(got.minor_units, want) << units << " * " << num << "/" << den << ", " << decimals;
        ASSERT_EQ(got.exact, rest == 0) << units << " * " << num << "/" << den << ", " << decimals;
        const BigInt abs_want = want < 0 ? BigInt(-want) : want;
        std::string digits = abs_want.str();
        while (digits.size() <= 2) digits.insert(digits.begin(), '0');
        digits.insert(digits.end() - 2, '.');
        ASSERT_EQ(format_minor_units(want), (want < 0 ? "-" : "") + digits) << want;
    }
    // Inputs inside the machine-integer bounds and outside them were drawn, each many times.
    EXPECT_GT(small_side, 1000);
    EXPECT_LT(small_side, 19000);
}

TEST(FiatValue, WritesIntegersAndMinorUnits) {
    EXPECT_EQ(to_decimal(BigInt(-12)), "-12");
    EXPECT_EQ(to_decimal(BigInt(0)), "0");
    EXPECT_EQ(to_decimal(BigInt(kMax)), kMax);
    EXPECT_EQ(format_minor_units(BigInt(-3850)), "-38.50");
    EXPECT_EQ(format_minor_units(BigInt(7)), "0.07");
    EXPECT_EQ(format_minor_units(BigInt(-7)), "-0.07");
    EXPECT_EQ(format_minor_units(BigInt(0)), "0.00");
}

}  // namespace
}  // namespace duepay::domain::money
