// The fallback order of FirstAvailableRateSource over in-memory sources (unit-test doubles).
#include "infra/rates/rate_sources.hpp"

#include <gtest/gtest.h>

#include "infra/config/env.hpp"

namespace duepay::infra::rates {
namespace {

using domain::money::FiatCurrency;

struct Fixed : RateSource {
    std::optional<std::string> rate;  // nullopt: fails
    bool retryable = true;
    int calls = 0;
    Quote quote(FiatCurrency, std::string_view, domain::ChainId) override {
        ++calls;
        if (!rate) throw RateUnavailable("fixed source down", retryable);
        return Quote{*domain::money::parse_rate(*rate), *rate, Clock::now(), Clock::now()};
    }
};

TEST(FirstAvailable, TheFirstSourceWinsAndTheNextIsNotAsked) {
    Fixed a, b;
    a.rate = "35";
    b.rate = "36";
    FirstAvailableRateSource s({&a, &b});
    EXPECT_EQ(s.quote(FiatCurrency::THB, "USDT", domain::ChainId{1}).source, "35");
    EXPECT_EQ(b.calls, 0);
}

TEST(FirstAvailable, FallsBackWhenTheFirstFails) {
    Fixed a, b;
    b.rate = "36";
    FirstAvailableRateSource s({&a, &b});
    EXPECT_EQ(s.quote(FiatCurrency::THB, "USDT", domain::ChainId{1}).source, "36");
    EXPECT_EQ(a.calls, 1);
}

TEST(FirstAvailable, AllFailingIsRetryableIfAnyWas) {
    Fixed a, b;
    a.retryable = false;
    FirstAvailableRateSource s({&a, &b});
    try {
        (void)s.quote(FiatCurrency::THB, "USDT", domain::ChainId{1});
        FAIL();
    } catch (const RateUnavailable& e) {
        EXPECT_TRUE(e.retryable());
    }
    b.retryable = false;
    try {
        (void)s.quote(FiatCurrency::THB, "USDT", domain::ChainId{1});
        FAIL();
    } catch (const RateUnavailable& e) {
        EXPECT_FALSE(e.retryable());
    }
}

TEST(RateSourcesAssembly, MalformedFeedsAreAConfigError) {
    EXPECT_THROW({ RateSources bad("{}", RateSettings{}); }, infra::config::ConfigError);
    RateSources ok(R"({"chains":[{"chainId":1,"rpcUrl":"http://127.0.0.1:9","priceFeeds":[]}]})",
                   RateSettings{});
    EXPECT_THROW((void)ok.source().quote(FiatCurrency::USD, "USDT", domain::ChainId{1}),
                 RateUnavailable);
}

}  // namespace
}  // namespace duepay::infra::rates
