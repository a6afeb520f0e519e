// JSON-path extraction and exact number parsing of the HTTP rate adapter (no network here; the
// adapter itself runs against a loopback server in tests/integration/guards).
#include "infra/rates/http_json_rate_source.hpp"

#include <gtest/gtest.h>

namespace duepay::infra::rates {
namespace {

using domain::money::FiatCurrency;

TEST(HttpJsonExtract, NumberIsReturnedAsItsRawText) {
    // 0.1 + long digits: a double would lose them; the raw text keeps every one.
    auto v = detail::extract_json_value(R"({"data":{"rates":{"THB":35.123456789012345678901}}})",
                                        "data.rates.THB");
    ASSERT_TRUE(v) << v.error().message;
    EXPECT_EQ(*v, "35.123456789012345678901");
}

TEST(HttpJsonExtract, StringValueAndArrayIndex) {
    EXPECT_EQ(
        *detail::extract_json_value(R"({"data":{"rates":{"THB":"32.51"}}})", "data.rates.THB"),
        "32.51");
    EXPECT_EQ(*detail::extract_json_value(R"({"items":[{"p":1},{"p":"2.5"}]})", "items.1.p"),
              "2.5");
}

TEST(HttpJsonExtract, MissingPathOrNonScalarIsRateNotFound) {
    EXPECT_EQ(detail::extract_json_value(R"({"data":{}})", "data.rates.THB").error().code,
              "rate_not_found");
    EXPECT_EQ(detail::extract_json_value(R"({"data":{"rates":{}}})", "data.rates").error().code,
              "rate_not_found");
    EXPECT_EQ(detail::extract_json_value(R"({"a":[1]})", "a.3").error().code, "rate_not_found");
    EXPECT_EQ(detail::extract_json_value(R"({"a":[1]})", "a.x").error().code, "rate_not_found");
    EXPECT_EQ(detail::extract_json_value(R"({"a":true})", "a").error().code, "rate_not_found");
    EXPECT_EQ(detail::extract_json_value(R"({"a":1})", "a..b").error().code, "rate_not_found");
    EXPECT_EQ(detail::extract_json_value(R"({"a":)", "a").error().code, "invalid_json");
}

TEST(HttpJsonParse, DecimalsAreExact) {
    EXPECT_EQ(domain::money::to_string(*detail::parse_exact_decimal("32.51")), "32.51");
    EXPECT_EQ(domain::money::to_string(*detail::parse_exact_decimal("0.1")), "0.1");
    const auto r = *detail::parse_exact_decimal("35.123456789012345678901");
    EXPECT_EQ(domain::money::to_string(r), "35.123456789012345678901");
}

TEST(HttpJsonParse, ExponentsAreAppliedExactly) {
    EXPECT_EQ(domain::money::to_string(*detail::parse_exact_decimal("3.251e1")), "32.51");
    EXPECT_EQ(domain::money::to_string(*detail::parse_exact_decimal("3251E-2")), "32.51");
    EXPECT_EQ(domain::money::to_string(*detail::parse_exact_decimal("1e+2")), "100");
    EXPECT_EQ(domain::money::to_string(*detail::parse_exact_decimal("1e-30")),
              "0.000000000000000000000000000001");
}

TEST(HttpJsonParse, RejectsNonPositiveAndMalformed) {
    for (const char* bad :
         {"0", "-1", "-0.5", "1e", "1e+", "1e999", "1e41", "abc", "", "1.2.3", "1/3e2", "NaN"}) {
        auto r = detail::parse_exact_decimal(bad);
        EXPECT_FALSE(r) << bad;
        if (!r) {
            EXPECT_EQ(r.error().code, "invalid_rate") << bad;
        }
    }
}

TEST(HttpJsonSubstitute, ReplacesThePlaceholders) {
    EXPECT_EQ(detail::substitute("/r?base={token}&chain={chain}#{fiat}", FiatCurrency::THB, "USDC",
                                 domain::ChainId{137}),
              "/r?base=USDC&chain=137#THB");
    EXPECT_EQ(detail::substitute("{nope}", FiatCurrency::USD, "X", domain::ChainId{1}), "{nope}");
}

}  // namespace
}  // namespace duepay::infra::rates
