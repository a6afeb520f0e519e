// Rates read from memory, refreshed in the background (docs/pricing.md "Refresh",
// ADR 0092). quote() never does I/O and never waits on a lock held during I/O, so a hung RPC node
// or rate endpoint cannot hold an API reactor thread: one refresher thread per chain asks the
// inner source for every wanted (fiat, token, chain) every `interval`, and quote() answers from
// the last result.
//
// Staleness (never a wrong price): a quote is served only while it was read at most
// `max_read_age` ago AND its feed's `updated_at` is at most `max_age` old; a refresh that failed
// with a non-retryable error (e.g. the feed was removed) hides the previous quote at once. Anything
// else is RateUnavailable (the API's 503 rate_unavailable). A pair nobody wanted yet is added to
// its chain's refresh list and answers RateUnavailable (retryable) until the first refresh.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "infra/rates/rates.hpp"

namespace duepay::infra::rates {

struct RatePair {
    domain::money::FiatCurrency fiat;
    std::string token_symbol;
    domain::ChainId chain;
};

struct RefreshSettings {
    std::chrono::milliseconds interval{10000};      // between two refreshes of a chain's pairs
    std::chrono::milliseconds max_read_age{30000};  // a quote older than this is not served
    std::chrono::seconds max_age{std::chrono::hours(25)};  // the feed's updatedAt (docs/pricing.md)
    std::function<Clock::time_point()> now;                // default: Clock::now
};

class RefreshingRateSource final : public RateSource {
  public:
    // Starts one refresher thread per chain of `wanted` (each refreshes at once, then every
    // interval). `inner` must outlive this object and be safe to call from those threads.
    RefreshingRateSource(RateSource& inner, const std::vector<RatePair>& wanted,
                         RefreshSettings settings = {});
    ~RefreshingRateSource() override;  // stops and joins the threads (waits for a call in progress)
    RefreshingRateSource(const RefreshingRateSource&) = delete;
    RefreshingRateSource& operator=(const RefreshingRateSource&) = delete;

    // From memory only; throws RateUnavailable.
    Quote quote(domain::money::FiatCurrency fiat, std::string_view token_symbol,
                domain::ChainId chain) override;

    // Waits (bounded) until every wanted pair has been tried once; true if so. For start-up, so
    // the first create after `duepay api` starts finds the rates (never called on a request).
    bool wait_first_round(std::chrono::milliseconds timeout);

    // Refresh rounds completed so far, over all chains (tests).
    std::uint64_t rounds() const;

  private:
    using Key = std::tuple<int, std::string, std::uint64_t>;
    struct Entry {
        std::optional<Quote> quote;            // the last good quote
        std::optional<RateUnavailable> error;  // the last refresh's error, if it failed
    };
    void refresh_loop(std::uint64_t chain);

    RateSource& inner_;
    RefreshSettings settings_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::map<std::uint64_t, std::set<std::pair<int, std::string>>>
        wanted_;  // chain -> (fiat, token)
    std::map<Key, Entry> entries_;
    std::uint64_t rounds_ = 0;
    bool stop_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace duepay::infra::rates
