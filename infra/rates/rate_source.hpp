// The rate-source port (docs/style.md): how many units of a fiat currency buy ONE whole token on a
// chain, as an exact rational (domain/money/rate.hpp), with where and when it was read. Adapters:
// chainlink_rate_source (on-chain aggregators, the first choice), http_json_rate_source (a JSON
// endpoint), cached_rate_source (a short-TTL decorator). No double anywhere (docs/pricing.md).
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <string_view>

#include "domain/money/fiat.hpp"
#include "domain/money/rate.hpp"
#include "domain/types.hpp"
#include "infra/error.hpp"

namespace duepay::infra::rates {

using Clock = std::chrono::system_clock;

struct Quote {
    domain::money::Rational fiat_per_token;  // fiat per ONE whole token, exact
    std::string source;                      // e.g. "chainlink:80002:USDT/USD,THB/USD"
    Clock::time_point updated_at;            // when the source last changed it (oldest input feed)
    Clock::time_point read_at;               // when this process read it
};

// No usable rate right now: missing feed, stale or non-positive answer, transport failure. The API
// answers 503 `rate_unavailable` (never a charge at a wrong price). `retryable()` says whether a
// later attempt can help (a missing feed for a token cannot; a stale feed or a timeout can).
class RateUnavailable : public InfraError {
  public:
    RateUnavailable(const std::string& what, bool retryable) : InfraError(what, retryable) {}
};

class RateSource {
  public:
    virtual ~RateSource() = default;
    // The rate of `token_symbol` (e.g. "USDT") in `fiat` on `chain`; throws RateUnavailable.
    // Implementations are safe to call from several threads at once.
    virtual Quote quote(domain::money::FiatCurrency fiat, std::string_view token_symbol,
                        domain::ChainId chain) = 0;
};

}  // namespace duepay::infra::rates
