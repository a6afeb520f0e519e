// The cache decorator over a counting in-memory source (a unit-test double) and a fake clock.
#include "infra/rates/cached_rate_source.hpp"

#include <gtest/gtest.h>

namespace duepay::infra::rates {
namespace {

using namespace std::chrono_literals;
using domain::money::FiatCurrency;

struct CountingSource : RateSource {
    int calls = 0;
    bool fail = false;
    Clock::time_point updated_at;
    std::string rate = "35.12";
    Quote quote(FiatCurrency, std::string_view, domain::ChainId) override {
        ++calls;
        if (fail) throw RateUnavailable("down", true);
        return Quote{*domain::money::parse_rate(rate), "fake", updated_at, updated_at};
    }
};

struct CacheFixture : ::testing::Test {
    Clock::time_point now = Clock::time_point(1700000000s);
    CountingSource inner;
    CachedRateSource cache{inner, CacheSettings{10s, 3600s, [this] { return now; }}};
    void SetUp() override { inner.updated_at = now; }
};

TEST_F(CacheFixture, ReusesAQuoteWithinTheTtlThenRereads) {
    auto a = cache.quote(FiatCurrency::THB, "USDT", domain::ChainId{80002});
    now += 9999ms;
    inner.rate = "36";
    auto b = cache.quote(FiatCurrency::THB, "USDT", domain::ChainId{80002});
    EXPECT_EQ(inner.calls, 1);
    EXPECT_EQ(b.fiat_per_token, a.fiat_per_token);
    now += 1ms;
    auto c = cache.quote(FiatCurrency::THB, "USDT", domain::ChainId{80002});
    EXPECT_EQ(inner.calls, 2);
    EXPECT_EQ(domain::money::to_string(c.fiat_per_token), "36");
}

TEST_F(CacheFixture, KeysAreFiatTokenAndChain) {
    (void)cache.quote(FiatCurrency::THB, "USDT", domain::ChainId{80002});
    (void)cache.quote(FiatCurrency::USD, "USDT", domain::ChainId{80002});
    (void)cache.quote(FiatCurrency::THB, "USDC", domain::ChainId{80002});
    (void)cache.quote(FiatCurrency::THB, "USDT", domain::ChainId{137});
    EXPECT_EQ(inner.calls, 4);
    (void)cache.quote(FiatCurrency::THB, "USDT", domain::ChainId{137});
    EXPECT_EQ(inner.calls, 4);
}

TEST_F(CacheFixture, FailuresAreNotCachedAndStaleQuotesAreErrors) {
    inner.fail = true;
    EXPECT_THROW((void)cache.quote(FiatCurrency::THB, "USDT", domain::ChainId{1}), RateUnavailable);
    inner.fail = false;
    EXPECT_NO_THROW((void)cache.quote(FiatCurrency::THB, "USDT", domain::ChainId{1}));
    EXPECT_EQ(inner.calls, 2);
    inner.updated_at = now - 3601s;  // the source answers with an old rate
    now += 11s;
    EXPECT_THROW((void)cache.quote(FiatCurrency::THB, "USDT", domain::ChainId{1}), RateUnavailable);
}

TEST_F(CacheFixture, ACachedQuoteThatAgesPastMaxAgeIsNotServed) {
    inner.updated_at = now - 3595s;  // young enough now, 5 s from the limit
    (void)cache.quote(FiatCurrency::THB, "USDT", domain::ChainId{1});
    now += 6s;  // within the TTL, but the rate is now older than max age
    EXPECT_THROW((void)cache.quote(FiatCurrency::THB, "USDT", domain::ChainId{1}), RateUnavailable);
    EXPECT_EQ(inner.calls, 2);
}

}  // namespace
}  // namespace duepay::infra::rates
