// The rate-source port (docs/style.md): how many units of a fiat currency buy ONE whole token on a
// chain, as an exact rational (domain/money/rate.hpp), with where and when it was read. Adapters in
// infra/rates: chainlink_rate_source (on-chain aggregators, the first choice),
// http_json_rate_source (a JSON endpoint), cached_rate_source (a short-TTL decorator). No double
// anywhere (docs/pricing.md).
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "domain/money/fiat.hpp"
#include "domain/money/rate.hpp"
#include "domain/ports/errors.hpp"
#include "domain/types.hpp"

namespace duepay::ports {

struct Quote {
    domain::money::Rational fiat_per_token;  // fiat per ONE whole token, exact
    std::string source;                      // e.g. "chainlink:80002:USDT/USD,THB/USD"
    std::chrono::system_clock::time_point
        updated_at;                                 // when the source last changed it (oldest feed)
    std::chrono::system_clock::time_point read_at;  // when this process read it
};

class RateSource {
  public:
    virtual ~RateSource() = default;
    // The rate of `token_symbol` (e.g. "USDT") in `fiat` on `chain`; throws RateUnavailable
    // (errors.hpp). Implementations are safe to call from several threads at once.
    virtual Quote quote(domain::money::FiatCurrency fiat, std::string_view token_symbol,
                        domain::ChainId chain) = 0;
};

}  // namespace duepay::ports
