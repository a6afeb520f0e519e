#include "infra/rates/cached_rate_source.hpp"

namespace duepay::infra::rates {

CachedRateSource::CachedRateSource(RateSource& inner, CacheSettings settings)
    : inner_(inner), settings_(std::move(settings)) {
    if (!settings_.now) settings_.now = [] { return Clock::now(); };
}

Quote CachedRateSource::quote(domain::money::FiatCurrency fiat, std::string_view token_symbol,
                              domain::ChainId chain) {
    const Key key{static_cast<int>(fiat), std::string(token_symbol), chain.value};
    {
        std::lock_guard lock(mutex_);
        auto it = cache_.find(key);
        if (it != cache_.end()) {
            const auto now = settings_.now();
            const bool fresh_read = now - it->second.read_at < settings_.ttl;
            const bool young = now - it->second.updated_at <= settings_.max_age;
            if (fresh_read && young) return it->second;
            cache_.erase(it);
        }
    }
    Quote q = inner_.quote(fiat, token_symbol, chain);  // throws RateUnavailable: nothing cached
    const auto now = settings_.now();
    if (now - q.updated_at > settings_.max_age) {
        throw RateUnavailable(q.source + ": rate is older than the maximum age", true);
    }
    q.read_at = now;  // the TTL counts from this cache's clock
    std::lock_guard lock(mutex_);
    cache_[key] = q;
    return q;
}

}  // namespace duepay::infra::rates
