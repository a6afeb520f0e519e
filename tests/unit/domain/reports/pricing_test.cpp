// What a settlement row is worth (domain/reports/settlement.hpp price, fee_of; the fiat rounding is
// domain/money fiat_value, tested in tests/unit/domain/money/rate_test.cpp) and how
// its numbers are written (format_fixed, parse_fixed): the rounding rules of docs/reports.md.
#include <gtest/gtest.h>

#include "domain/reports/settlement.hpp"
#include "domain/reports/settlement_totals.hpp"
#include "tests/unit/domain/charge/facts.hpp"

namespace duepay::domain::reports {
namespace {

using namespace domain::charge::facts;

money::Rational rate(const char* text) { return money::parse_rate(text).value(); }

SettlementEntry entry(RowKind kind, std::uint64_t amount) {
    SettlementEntry e;
    e.kind = kind;
    e.amount = TokenAmount{amount};
    return e;
}

PriceTerms priced(const char* fiat_rate, std::uint32_t fee_bps = 100, unsigned decimals = 6) {
    ChargeCreated c = created_data(1'000'000);
    c.fee_bps = fee_bps;
    c.token_decimals = decimals;
    FiatQuote q;
    q.amount = money::FiatAmount{money::FiatCurrency::THB, 3500};
    q.rate = rate(fiat_rate);
    q.rate_source = "test";
    c.fiat = q;
    return terms_of(c);
}

TEST(SettlementFee, IsTheFloorOfTheContractsSplit) {
    EXPECT_EQ(fee_of(1'000'000, 100), 10'000);
    EXPECT_EQ(fee_of(99, 100), 0);   // 0.99 -> 0
    EXPECT_EQ(fee_of(199, 100), 1);  // 1.99 -> 1
    EXPECT_EQ(fee_of(12345, 0), 0);
    EXPECT_EQ(fee_of(12345, 10000), 12345);
    const BigInt max = BigInt(~uint256(0));
    EXPECT_EQ(fee_of(max, 10000), max);  // no overflow: BigInt
}

TEST(SettlementPrice, APaymentPaysTheFeeARefundIsNegativeWithoutOne) {
    const auto terms = priced("35.125");
    const auto p = price(terms, entry(RowKind::payment, 1'000'000));
    EXPECT_EQ(p.amount, 1'000'000);
    EXPECT_EQ(p.fee, 10'000);
    EXPECT_EQ(p.net, 990'000);
    ASSERT_TRUE(p.fiat_amount);
    EXPECT_EQ(*p.fiat_currency, money::FiatCurrency::THB);
    EXPECT_EQ(*p.fiat_rate, rate("35.125"));
    EXPECT_EQ(*p.fiat_amount, 3513);    // 35.125 -> 35.13
    EXPECT_EQ(*p.fiat_fee, 35);         // 0.35125 -> 0.35
    EXPECT_EQ(*p.fiat_net, 3513 - 35);  // the columns add up, not round(net)
    const auto r = price(terms, entry(RowKind::refund, 1'000'000));
    EXPECT_EQ(r.amount, -1'000'000);
    EXPECT_EQ(r.fee, 0);
    EXPECT_EQ(r.net, -1'000'000);
    EXPECT_EQ(*r.fiat_amount, -3513);
    EXPECT_EQ(*r.fiat_fee, 0);
    EXPECT_EQ(*r.fiat_net, -3513);
}

TEST(SettlementPrice, NoQuoteNoFiat) {
    const auto p = price(terms_of(created_data(100)), entry(RowKind::payment, 199));
    EXPECT_EQ(p.fee, 1);
    EXPECT_EQ(p.net, 198);
    EXPECT_FALSE(p.fiat_currency);
    EXPECT_FALSE(p.fiat_rate);
    EXPECT_FALSE(p.fiat_amount);
    EXPECT_FALSE(p.fiat_fee);
    EXPECT_FALSE(p.fiat_net);
}

TEST(SettlementFormat, FixedDecimalsExactly) {
    EXPECT_EQ(format_fixed("1250000", 6), "1.250000");
    EXPECT_EQ(format_fixed("-1250000", 6), "-1.250000");
    EXPECT_EQ(format_fixed("1", 6), "0.000001");
    EXPECT_EQ(format_fixed("-1", 6), "-0.000001");
    EXPECT_EQ(format_fixed("0", 6), "0.000000");
    EXPECT_EQ(format_fixed("123456", 6), "0.123456");
    EXPECT_EQ(format_fixed("42", 0), "42");
    EXPECT_EQ(format_fixed("-42", 0), "-42");
    const std::string max =
        "115792089237316195423570985008687907853269984665640564039457584007913129639935";
    EXPECT_EQ(format_fixed(max, 18),
              "115792089237316195423570985008687907853269984665640564039457.584007913129639935");
    for (const char* bad : {"", "-", "01", "-0", "1.5", "+1", " 1", "1e3", "--1"})
        EXPECT_FALSE(format_fixed(bad, 6)) << bad;
}

TEST(SettlementFormat, ParseFixedIsItsInverse) {
    for (const char* text : {"1.250000", "-1.250000", "0.000001", "0.000000", "-0.000001"}) {
        const auto units = parse_fixed(text, 6);
        ASSERT_TRUE(units) << text;
        EXPECT_EQ(format_fixed(money::to_decimal(*units), 6), text);
    }
    EXPECT_EQ(parse_fixed("351.75", 2), 35175);
    EXPECT_EQ(parse_fixed("-0.05", 2), -5);
    EXPECT_EQ(parse_fixed("0.36", 2), 36);  // "036" is not octal here
    EXPECT_EQ(parse_fixed("0.09", 2), 9);
    EXPECT_EQ(parse_integer("007"), 7);
    EXPECT_EQ(parse_fixed("7", 0), 7);
    for (const char* bad : {"351.7", "351.755", ".75", "-.75", "3a1.75", "351,75", ""})
        EXPECT_FALSE(parse_fixed(bad, 2)) << bad;
    EXPECT_EQ(parse_integer("-12"), -12);
    EXPECT_FALSE(parse_integer("1.0"));
    EXPECT_FALSE(parse_integer(""));
}

}  // namespace
}  // namespace duepay::domain::reports
