// The assembled rate source the API uses: chain feeds first, an optional HTTP JSON source as the
// fallback, both refreshed in the background and read from memory (RefreshingRateSource;
// docs/pricing.md, ADR 0071, ADR 0092). Built from the chain registry text and settings read from
// the environment, so wiring is one call in the composition root.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "infra/rates/cached_rate_source.hpp"
#include "infra/rates/chainlink_rate_source.hpp"
#include "infra/rates/http_json_rate_source.hpp"
#include "infra/rates/rates.hpp"
#include "infra/rates/refreshing_rate_source.hpp"

namespace duepay::infra::rates {

// Asks each source in order and answers with the first quote; if all fail, throws the first
// source's error (retryable if any of them was).
class FirstAvailableRateSource final : public RateSource {
  public:
    explicit FirstAvailableRateSource(std::vector<RateSource*> sources)
        : sources_(std::move(sources)) {}
    Quote quote(domain::money::FiatCurrency fiat, std::string_view token_symbol,
                domain::ChainId chain) override;

  private:
    std::vector<RateSource*> sources_;
};

struct RateSettings {
    ChainlinkSettings chainlink;
    CacheSettings cache;  // cache.ttl is the refresh interval, cache.max_age the feed's maximum age
    std::chrono::milliseconds max_read_age{30000};  // a quote read longer ago is not served
    std::optional<HttpJsonSettings> http;           // fallback, when configured
};

// Environment: DUEPAY_RATE_MAX_AGE_SECONDS (default 90000), DUEPAY_RATE_CACHE_TTL_MS (the refresh
// interval, 10000), DUEPAY_RATE_MAX_READ_AGE_MS (30000), DUEPAY_RATE_HTTP_URL +
// DUEPAY_RATE_HTTP_PATH (+ DUEPAY_RATE_HTTP_INVERTED=1) for the fallback.
// Throws config::ConfigError on a malformed value.
RateSettings rate_settings_from_env();

class RateSources {
  public:
    // Throws config::ConfigError when the registry text has malformed priceFeeds. Starts the
    // refresher threads: every token of every chain of the registry in THB and USD.
    RateSources(std::string_view chains_json, RateSettings settings);
    RateSource& source() { return *refreshing_; }
    // Start-up only: waits (bounded) for the first refresh of every pair.
    bool wait_first_round(std::chrono::milliseconds timeout) {
        return refreshing_->wait_first_round(timeout);
    }

  private:
    std::unique_ptr<ChainlinkRateSource> chain_;
    std::unique_ptr<HttpJsonRateSource> http_;
    std::unique_ptr<FirstAvailableRateSource> first_;
    std::unique_ptr<RefreshingRateSource> refreshing_;
};

}  // namespace duepay::infra::rates
