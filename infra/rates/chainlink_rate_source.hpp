// Rates from Chainlink-style aggregators (AggregatorV3Interface) read by eth_call: decimals()
// (0x313ce567) once per feed, latestRoundData() (0xfeaf968c) per quote. USD per token comes from
// the "<TOKEN>/USD" feed; THB per token = (USD per token) / (USD per THB) from the "THB/USD" feed,
// exactly (domain::money::fiat_per_token_via_usd). An answer <= 0, an unfinished round
// (updatedAt == 0 or answeredInRound < roundId) or an answer older than `max_age` is refused.
//
// Age is measured against the later of the wall clock and the chain head's timestamp: a dev chain
// moved ahead of the wall clock (evm_increaseTime) does not make a fresh answer look future-dated,
// and a stalled node (head behind) does not make an old answer look fresh.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "domain/money/rate.hpp"
#include "domain/result.hpp"
#include "domain/types.hpp"
#include "infra/rates/rates.hpp"

namespace duepay::infra::rates {

struct PriceFeed {
    std::string pair;  // "THB/USD", "USDT/USD", "USDC/USD": answer = USD per ONE base unit
    domain::Address address;
};

struct ChainFeeds {
    domain::ChainId chain_id;
    std::string rpc_url;
    std::vector<PriceFeed> feeds;
};

// The priceFeeds of every chain in var/chains.json (the chain deploy script's contract). Error
// code "invalid_chain_registry" naming the field.
domain::Result<std::vector<ChainFeeds>> parse_chain_feeds(std::string_view chains_json);

namespace detail {
// The five words of latestRoundData(); answer is int256 (two's complement, may be negative).
struct RoundData {
    domain::uint256 round_id = 0;
    domain::money::BigInt answer = 0;
    domain::uint256 started_at = 0;
    domain::uint256 updated_at = 0;
    domain::uint256 answered_in_round = 0;
};
// Exactly 5 ABI words (160 bytes); anything else: nullopt.
std::optional<RoundData> decode_latest_round_data(std::span<const std::uint8_t> returned);
// One ABI word holding a uint8 (decimals()); a value above 255 or a wrong length: nullopt.
std::optional<unsigned> decode_uint8(std::span<const std::uint8_t> returned);
// The checks of the header comment; `now_unix` is the reference time. Error code "stale_rate" for
// an old or unfinished round, "invalid_rate" for answer <= 0.
domain::Result<domain::money::Rational> checked_rate(const RoundData& round, unsigned decimals,
                                                     std::int64_t now_unix,
                                                     std::chrono::seconds max_age);
}  // namespace detail

struct ChainlinkSettings {
    std::chrono::seconds max_age{std::chrono::hours(25)};  // fiat feeds beat every 24 h at least
    std::chrono::milliseconds rpc_timeout{3000};
    std::function<std::int64_t()> now_unix;  // wall clock in unix seconds; default: system clock
};

class ChainlinkRateSource final : public RateSource {
  public:
    ChainlinkRateSource(std::vector<ChainFeeds> chains, ChainlinkSettings settings = {});
    ~ChainlinkRateSource() override;

    Quote quote(domain::money::FiatCurrency fiat, std::string_view token_symbol,
                domain::ChainId chain) override;

  private:
    struct ChainState;
    std::map<std::uint64_t, std::unique_ptr<ChainState>> chains_;
    ChainlinkSettings settings_;
};

}  // namespace duepay::infra::rates
