#include "domain/money/fiat.hpp"

#include <gtest/gtest.h>

#include "domain/money/fiat_symbol.hpp"

namespace duepay::domain::money {
namespace {

TEST(FiatCurrency, AcceptsOnlyThbAndUsd) {
    EXPECT_EQ(*parse_fiat_currency("THB"), FiatCurrency::THB);
    EXPECT_EQ(*parse_fiat_currency("USD"), FiatCurrency::USD);
    for (const char* bad : {"EUR", "thb", "usd", "", "USD ", "BTC"}) {
        auto r = parse_fiat_currency(bad);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.error().code, "unsupported_currency");
    }
    EXPECT_EQ(to_string(FiatCurrency::THB), "THB");
    EXPECT_EQ(to_string(FiatCurrency::USD), "USD");
}

TEST(FiatCurrency, Symbols) {
    struct Row {
        FiatCurrency currency;
        const char* symbol;
    };
    for (const auto& r : {Row{FiatCurrency::THB, "\xe0\xb8\xbf"}, Row{FiatCurrency::USD, "$"}})
        EXPECT_EQ(currency_symbol(r.currency), r.symbol) << to_string(r.currency);
}

TEST(FiatAmount, HoldsMinorUnitsExactly) {
    struct Case {
        const char* text;
        std::uint64_t minor;
        const char* canonical;
    };
    const Case cases[] = {
        {"1", 100, "1.00"},          {"0.01", 1, "0.01"},
        {"0.5", 50, "0.50"},         {"10.5", 1050, "10.50"},
        {"123.45", 12345, "123.45"}, {"350", 35000, "350.00"},
        {"0.10", 10, "0.10"},        {"999999999999.99", 99999999999999, "999999999999.99"},
    };
    for (const auto& c : cases) {
        auto r = parse_fiat_amount(FiatCurrency::THB, c.text);
        ASSERT_TRUE(r.ok()) << c.text << ": " << r.error().message;
        EXPECT_EQ(r->minor_units, c.minor) << c.text;
        EXPECT_EQ(r->currency, FiatCurrency::THB);
        EXPECT_EQ(to_string(*r), c.canonical);
        EXPECT_EQ(*parse_fiat_amount(FiatCurrency::THB, to_string(*r)), *r);
    }
}

TEST(FiatAmount, RejectsWithReason) {
    struct Case {
        const char* text;
        const char* reason;
    };
    const Case cases[] = {
        {"", "empty"},
        {"-1", "sign"},
        {"+1", "sign"},
        {" 1", "whitespace"},
        {"1 ", "whitespace"},
        {"1e2", "exponent"},
        {"1.234", "2 fraction digits"},
        {"0.001", "2 fraction digits"},
        {".5", "before the '.'"},
        {"5.", "after the '.'"},
        {"1.2.3", "at most one"},
        {"1,5", "digits"},
        {"00.5", "leading zeros"},
        {"01", "leading zeros"},
        {"0", "greater than zero"},
        {"0.00", "greater than zero"},
        {"1000000000000", "too large"},
    };
    for (const auto& c : cases) {
        auto r = parse_fiat_amount(FiatCurrency::USD, c.text);
        ASSERT_FALSE(r.ok()) << "accepted '" << c.text << "'";
        EXPECT_EQ(r.error().code, "invalid_fiat_amount");
        EXPECT_NE(r.error().message.find(c.reason), std::string::npos)
            << c.text << " -> " << r.error().message;
    }
}

}  // namespace
}  // namespace duepay::domain::money
