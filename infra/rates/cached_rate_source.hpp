// A short-TTL cache in front of a RateSource: a quote is reused for `ttl` after it was read (so a
// burst of creations reads the feed once), and never once its `updated_at` is older than `max_age`
// (then the inner source is asked again, and its error, if any, is the answer: a stale rate is an
// error, not a price). Failures are not cached. Thread-safe; two threads missing the same key at
// once may both ask the inner source (harmless: reads only).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "infra/rates/rates.hpp"

namespace duepay::infra::rates {

struct CacheSettings {
    std::chrono::milliseconds ttl{10000};
    std::chrono::seconds max_age{std::chrono::hours(25)};
    std::function<Clock::time_point()> now;  // default: Clock::now
};

class CachedRateSource final : public RateSource {
  public:
    CachedRateSource(RateSource& inner, CacheSettings settings = {});
    Quote quote(domain::money::FiatCurrency fiat, std::string_view token_symbol,
                domain::ChainId chain) override;

  private:
    using Key = std::tuple<int, std::string, std::uint64_t>;
    RateSource& inner_;
    CacheSettings settings_;
    std::mutex mutex_;
    std::map<Key, Quote> cache_;
};

}  // namespace duepay::infra::rates
