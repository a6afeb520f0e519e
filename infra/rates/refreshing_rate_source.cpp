#include "infra/rates/refreshing_rate_source.hpp"

#include <iostream>

namespace duepay::infra::rates {

RefreshingRateSource::RefreshingRateSource(RateSource& inner, const std::vector<RatePair>& wanted,
                                           RefreshSettings settings)
    : inner_(inner), settings_(std::move(settings)) {
    if (!settings_.now) settings_.now = [] { return Clock::now(); };
    for (const auto& p : wanted)
        wanted_[p.chain.value].emplace(static_cast<int>(p.fiat), p.token_symbol);
    for (const auto& [chain, pairs] : wanted_) {
        threads_.emplace_back([this, chain = chain] { refresh_loop(chain); });
    }
}

RefreshingRateSource::~RefreshingRateSource() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
}

void RefreshingRateSource::refresh_loop(std::uint64_t chain) {
    std::unique_lock lock(mutex_);
    while (!stop_) {
        const auto pairs = wanted_[chain];  // a copy: quote() may add pairs meanwhile
        lock.unlock();
        for (const auto& [fiat, token] : pairs) {
            Entry result;
            try {
                result.quote = inner_.quote(static_cast<domain::money::FiatCurrency>(fiat), token,
                                            domain::ChainId{chain});
            } catch (const RateUnavailable& e) {
                result.error.emplace(e);
            } catch (const std::exception& e) {
                result.error.emplace(std::string("rate refresh failed: ") + e.what(), true);
            }
            std::lock_guard relock(mutex_);
            auto& entry = entries_[Key{fiat, token, chain}];
            if (result.quote) entry.quote = std::move(result.quote);
            entry.error = std::move(result.error);
            if (stop_) return;
        }
        lock.lock();
        ++rounds_;
        wake_.notify_all();
        wake_.wait_for(lock, settings_.interval, [this] { return stop_; });
    }
}

Quote RefreshingRateSource::quote(domain::money::FiatCurrency fiat, std::string_view token_symbol,
                                  domain::ChainId chain) {
    const auto now = settings_.now();
    std::lock_guard lock(mutex_);
    const Key key{static_cast<int>(fiat), std::string(token_symbol), chain.value};
    auto it = entries_.find(key);
    if (it == entries_.end()) {
        auto pairs = wanted_.find(chain.value);
        if (pairs == wanted_.end()) {
            throw RateUnavailable("no rate source for chain " + std::to_string(chain.value), false);
        }
        pairs->second.emplace(static_cast<int>(fiat),
                              std::string(token_symbol));  // next round reads it
        throw RateUnavailable("the rate of " + std::string(token_symbol) + " is not read yet",
                              true);
    }
    const Entry& entry = it->second;
    if (entry.error && !entry.error->retryable()) throw *entry.error;
    if (entry.quote) {
        const bool recent = now - entry.quote->read_at <= settings_.max_read_age;
        const bool young = now - entry.quote->updated_at <= settings_.max_age;
        if (recent && young) return *entry.quote;
    }
    if (entry.error) throw *entry.error;
    throw RateUnavailable((entry.quote ? entry.quote->source : std::string("rate")) +
                              ": the last good rate is too old (refresh failing or feed stale)",
                          true);
}

bool RefreshingRateSource::wait_first_round(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return wake_.wait_for(lock, timeout, [this] {
        for (const auto& [chain, pairs] : wanted_) {
            for (const auto& [fiat, token] : pairs) {
                if (!entries_.contains(Key{fiat, token, chain})) return false;
            }
        }
        return true;
    });
}

std::uint64_t RefreshingRateSource::rounds() const {
    std::lock_guard lock(mutex_);
    return rounds_;
}

}  // namespace duepay::infra::rates
