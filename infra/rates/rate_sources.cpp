#include "infra/rates/rate_sources.hpp"

#include "infra/config/chain_registry.hpp"
#include "infra/config/env.hpp"

namespace duepay::infra::rates {

Quote FirstAvailableRateSource::quote(domain::money::FiatCurrency fiat,
                                      std::string_view token_symbol, domain::ChainId chain) {
    std::optional<RateUnavailable> first_error;
    bool any_retryable = false;
    for (RateSource* s : sources_) {
        try {
            return s->quote(fiat, token_symbol, chain);
        } catch (const RateUnavailable& e) {
            any_retryable = any_retryable || e.retryable();
            if (!first_error) first_error.emplace(e);
        }
    }
    if (!first_error) throw RateUnavailable("no rate source configured", false);
    throw RateUnavailable(first_error->what(), any_retryable);
}

RateSettings rate_settings_from_env() {
    RateSettings s;
    const auto max_age = std::chrono::seconds(
        config::env_int_or("DUEPAY_RATE_MAX_AGE_SECONDS", 90000, 1, 7LL * 86400));
    s.chainlink.max_age = max_age;
    s.cache.max_age = max_age;
    s.cache.ttl = std::chrono::milliseconds(
        config::env_int_or("DUEPAY_RATE_CACHE_TTL_MS", 10000, 100, 600000));
    s.max_read_age = std::chrono::milliseconds(
        config::env_int_or("DUEPAY_RATE_MAX_READ_AGE_MS", 30000, 1000, 3600000));
    const std::string url = config::env_or("DUEPAY_RATE_HTTP_URL", "");
    if (!url.empty()) {
        HttpJsonSettings h;
        h.url = url;
        h.json_path = config::require_env("DUEPAY_RATE_HTTP_PATH");
        h.inverted = config::env_or("DUEPAY_RATE_HTTP_INVERTED", "0") == "1";
        h.name = config::env_or("DUEPAY_RATE_HTTP_NAME", "http");
        s.http = h;
    }
    return s;
}

RateSources::RateSources(std::string_view chains_json, RateSettings settings) {
    auto feeds = parse_chain_feeds(chains_json);
    if (!feeds) throw config::ConfigError(feeds.error().message);
    chain_ = std::make_unique<ChainlinkRateSource>(std::move(feeds).value(), settings.chainlink);
    std::vector<RateSource*> order{chain_.get()};
    if (settings.http) {
        http_ = std::make_unique<HttpJsonRateSource>(*settings.http);
        order.push_back(http_.get());
    }
    first_ = std::make_unique<FirstAvailableRateSource>(std::move(order));
    // What to refresh: every token of every chain in the registry, in THB and USD. A registry
    // without tokens (unit tests) falls back to the feeds' own "<TOKEN>/USD" pairs.
    std::vector<RatePair> wanted;
    auto add = [&](domain::ChainId chain, const std::string& token) {
        for (auto fiat : {domain::money::FiatCurrency::THB, domain::money::FiatCurrency::USD}) {
            wanted.push_back(RatePair{fiat, token, chain});
        }
    };
    if (auto registry = config::ChainRegistry::parse(chains_json)) {
        for (const auto& c : registry->chains()) {
            for (const auto& t : c.tokens) add(c.chain_id, t.symbol);
        }
    } else {
        const auto feed_list = parse_chain_feeds(chains_json);  // valid: checked above
        for (const auto& c : feed_list.value()) {
            for (const auto& f : c.feeds) {
                if (f.pair != "THB/USD" && f.pair.ends_with("/USD")) {
                    add(c.chain_id, f.pair.substr(0, f.pair.size() - 4));
                }
            }
        }
    }
    RefreshSettings refresh;
    refresh.interval = settings.cache.ttl;
    refresh.max_age = settings.cache.max_age;
    refresh.max_read_age = settings.max_read_age;
    refreshing_ = std::make_unique<RefreshingRateSource>(*first_, wanted, refresh);
}

}  // namespace duepay::infra::rates
