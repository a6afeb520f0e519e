// RefreshingRateSource over in-memory inner sources: quote() answers from memory while the inner
// source hangs, and the staleness rules of docs/pricing.md hold (too old -> RateUnavailable).
#include "infra/rates/refreshing_rate_source.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace duepay::infra::rates {
namespace {

using domain::money::FiatCurrency;
using namespace std::chrono_literals;

const domain::ChainId kChain{80002};

// An inner source that can hang (until released) or fail; counts its calls.
struct Controlled : RateSource {
    std::mutex mutex;
    std::condition_variable cv;
    bool hang = false;
    std::optional<RateUnavailable> error;
    std::atomic<int> calls{0};
    Clock::time_point updated_at = Clock::now();

    Quote quote(FiatCurrency, std::string_view token, domain::ChainId) override {
        ++calls;
        std::unique_lock lock(mutex);
        cv.wait(lock, [&] { return !hang; });
        if (error) throw *error;
        return Quote{*domain::money::parse_rate("35.5"), "fake:" + std::string(token), updated_at,
                     Clock::now()};
    }
    void release() {
        {
            std::lock_guard lock(mutex);
            hang = false;
        }
        cv.notify_all();
    }
};

std::vector<RatePair> usdt() { return {RatePair{FiatCurrency::THB, "USDT", kChain}}; }

TEST(RefreshingRateSource, AHungSourceNeverDelaysQuote) {
    Controlled inner;
    inner.hang = true;
    RefreshingRateSource source(inner, usdt(),
                                RefreshSettings{50ms, 30s, std::chrono::hours(25), {}});
    const auto started = std::chrono::steady_clock::now();
    for (int i = 0; i < 100; ++i) {
        EXPECT_THROW((void)source.quote(FiatCurrency::THB, "USDT", kChain), RateUnavailable);
    }
    EXPECT_LT(std::chrono::steady_clock::now() - started, 200ms)
        << "quote() waited on the hung source";
    EXPECT_FALSE(source.wait_first_round(20ms));
    inner.release();
    ASSERT_TRUE(source.wait_first_round(2s));
    EXPECT_EQ(source.quote(FiatCurrency::THB, "USDT", kChain).source, "fake:USDT");
}

TEST(RefreshingRateSource, QuotesComeFromMemoryNotFromTheInnerSource) {
    Controlled inner;
    RefreshingRateSource source(inner, usdt(),
                                RefreshSettings{10s, 30s, std::chrono::hours(25), {}});
    ASSERT_TRUE(source.wait_first_round(2s));
    const int after_first = inner.calls;
    for (int i = 0; i < 1000; ++i) (void)source.quote(FiatCurrency::THB, "USDT", kChain);
    EXPECT_EQ(inner.calls, after_first);
}

TEST(RefreshingRateSource, ARateReadTooLongAgoOrFromAStaleFeedIsNotServed) {
    Controlled inner;
    std::atomic<long long> skew_ms{0};
    RefreshSettings s{10s, 30s, std::chrono::hours(25),
                      [&] { return Clock::now() + std::chrono::milliseconds(skew_ms.load()); }};
    RefreshingRateSource source(inner, usdt(), s);
    ASSERT_TRUE(source.wait_first_round(2s));
    EXPECT_NO_THROW((void)source.quote(FiatCurrency::THB, "USDT", kChain));
    skew_ms = 31'000;  // the refresher has not read it for 31 s
    EXPECT_THROW((void)source.quote(FiatCurrency::THB, "USDT", kChain), RateUnavailable);
    skew_ms = 0;

    Controlled old_feed;
    old_feed.updated_at = Clock::now() - std::chrono::hours(26);
    RefreshingRateSource stale(old_feed, usdt(),
                               RefreshSettings{10s, 30s, std::chrono::hours(25), {}});
    ASSERT_TRUE(stale.wait_first_round(2s));
    EXPECT_THROW((void)stale.quote(FiatCurrency::THB, "USDT", kChain), RateUnavailable);
}

TEST(RefreshingRateSource, ANonRetryableRefreshErrorHidesThePreviousQuoteARetryableOneDoesNot) {
    Controlled inner;
    RefreshingRateSource source(inner, usdt(),
                                RefreshSettings{20ms, 30s, std::chrono::hours(25), {}});
    ASSERT_TRUE(source.wait_first_round(2s));
    {
        std::lock_guard lock(inner.mutex);
        inner.error.emplace("timeout", true);
    }
    const auto rounds = source.rounds();
    while (source.rounds() < rounds + 2) std::this_thread::sleep_for(5ms);
    EXPECT_NO_THROW((void)source.quote(FiatCurrency::THB, "USDT", kChain))
        << "a timeout hid a recent quote";
    {
        std::lock_guard lock(inner.mutex);
        inner.error.emplace("feed removed", false);
    }
    const auto later = source.rounds();
    while (source.rounds() < later + 2) std::this_thread::sleep_for(5ms);
    try {
        (void)source.quote(FiatCurrency::THB, "USDT", kChain);
        FAIL() << "served a rate whose feed is gone";
    } catch (const RateUnavailable& e) {
        EXPECT_FALSE(e.retryable());
    }
}

TEST(RefreshingRateSource, APairNobodyWantedIsAddedAndReadByTheNextRound) {
    Controlled inner;
    RefreshingRateSource source(inner, usdt(),
                                RefreshSettings{20ms, 30s, std::chrono::hours(25), {}});
    ASSERT_TRUE(source.wait_first_round(2s));
    EXPECT_THROW((void)source.quote(FiatCurrency::USD, "USDC", kChain), RateUnavailable);
    const auto rounds = source.rounds();
    while (source.rounds() < rounds + 2) std::this_thread::sleep_for(5ms);
    EXPECT_EQ(source.quote(FiatCurrency::USD, "USDC", kChain).source, "fake:USDC");
    try {
        (void)source.quote(FiatCurrency::USD, "USDC", domain::ChainId{1});
        FAIL();
    } catch (const RateUnavailable& e) {
        EXPECT_FALSE(e.retryable()) << "a chain without sources";
    }
}

}  // namespace
}  // namespace duepay::infra::rates
