#include "infra/rates/chainlink_rate_source.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <array>

#include "domain/evm/abi.hpp"
#include "domain/hex.hpp"
#include "domain/json.hpp"
#include "infra/rpc/rpc_client.hpp"

namespace duepay::infra::rates {

using domain::money::BigInt;
using domain::money::Rational;

domain::Result<std::vector<ChainFeeds>> parse_chain_feeds(std::string_view chains_json) {
    auto bad = [](const std::string& what) {
        return domain::make_error("invalid_chain_registry", "chain registry: " + what);
    };
    rapidjson::Document doc;
    const auto problem = domain::json::parse(doc, chains_json);
    if (problem.refusal != domain::json::Refusal::none)
        return bad(domain::json::describe(problem, "the file"));
    if (!doc.IsObject() || !doc.HasMember("chains") || !doc["chains"].IsArray()) {
        return bad("not an object with a 'chains' array");
    }
    std::vector<ChainFeeds> out;
    for (const auto& c : doc["chains"].GetArray()) {
        if (!c.IsObject() || !c.HasMember("chainId") || !c["chainId"].IsUint64())
            return bad("a chain without chainId");
        ChainFeeds chain;
        chain.chain_id = domain::ChainId{c["chainId"].GetUint64()};
        const std::string where = "chain " + std::to_string(chain.chain_id.value) + ": ";
        if (!c.HasMember("rpcUrl") || !c["rpcUrl"].IsString()) return bad(where + "rpcUrl missing");
        chain.rpc_url = c["rpcUrl"].GetString();
        if (c.HasMember("priceFeeds")) {
            if (!c["priceFeeds"].IsArray()) return bad(where + "priceFeeds is not an array");
            for (const auto& f : c["priceFeeds"].GetArray()) {
                if (!f.IsObject() || !f.HasMember("pair") || !f["pair"].IsString() ||
                    !f.HasMember("address") || !f["address"].IsString()) {
                    return bad(where + "a price feed without pair or address");
                }
                auto addr = domain::from_hex_fixed<20>(f["address"].GetString());
                if (!addr)
                    return bad(where + "price feed " + f["pair"].GetString() +
                               ": malformed address");
                chain.feeds.push_back(PriceFeed{f["pair"].GetString(), domain::Address{*addr}});
            }
        }
        out.push_back(std::move(chain));
    }
    return out;
}

namespace detail {

std::optional<RoundData> decode_latest_round_data(std::span<const std::uint8_t> returned) {
    if (returned.size() != std::size_t{5} * 32) return std::nullopt;
    auto word = [&](std::size_t i) {
        domain::evm::Word w{};
        std::copy_n(returned.begin() + static_cast<std::ptrdiff_t>(32 * i), 32, w.begin());
        return domain::evm::abi_uint256(w);
    };
    RoundData r;
    r.round_id = word(0);
    const domain::uint256 raw_answer = word(1);
    if (raw_answer >> 255) {  // int256 two's complement: negative
        r.answer = -(BigInt(~raw_answer) + 1);
    } else {
        r.answer = BigInt(raw_answer);
    }
    r.started_at = word(2);
    r.updated_at = word(3);
    r.answered_in_round = word(4);
    return r;
}

std::optional<unsigned> decode_uint8(std::span<const std::uint8_t> returned) {
    if (returned.size() != 32) return std::nullopt;
    for (std::size_t i = 0; i < 31; ++i) {
        if (returned[i] != 0) return std::nullopt;
    }
    return returned[31];
}

domain::Result<Rational> checked_rate(const RoundData& round, unsigned decimals,
                                      std::int64_t now_unix, std::chrono::seconds max_age) {
    if (round.answer <= 0) return domain::make_error("invalid_rate", "feed answer is not positive");
    if (round.updated_at == 0)
        return domain::make_error("stale_rate", "feed round is not complete (updatedAt 0)");
    if (round.answered_in_round < round.round_id) {
        return domain::make_error("stale_rate",
                                  "feed answer was carried over from an earlier round");
    }
    if (round.updated_at > domain::uint256(now_unix + 300)) {
        return domain::make_error("stale_rate",
                                  "feed updatedAt is more than 5 minutes in the future");
    }
    const auto updated = static_cast<std::int64_t>(round.updated_at);
    if (now_unix - updated > max_age.count()) {
        return domain::make_error(
            "stale_rate", "feed answer is " + std::to_string(now_unix - updated) + " s old (max " +
                              std::to_string(max_age.count()) + " s)");
    }
    return domain::money::rate_from_answer(round.answer, decimals);
}

}  // namespace detail

struct ChainlinkRateSource::ChainState {
    ChainFeeds config;
    std::mutex mutex;  // guards client and decimals (RpcClient is one-thread)
    std::unique_ptr<rpc::RpcClient> client;
    std::map<std::string, unsigned> decimals;  // by pair; immutable on chain, read once

    const PriceFeed* feed(const std::string& pair) const {
        for (const auto& f : config.feeds) {
            if (f.pair == pair) return &f;
        }
        return nullptr;
    }
};

namespace {

constexpr std::array<std::uint8_t, 4> kDecimals{0x31, 0x3c, 0xe5, 0x67};
constexpr std::array<std::uint8_t, 4> kLatestRoundData{0xfe, 0xaf, 0x96, 0x8c};

struct FeedRead {
    Rational rate;
    std::int64_t updated_at = 0;
};

}  // namespace

ChainlinkRateSource::ChainlinkRateSource(std::vector<ChainFeeds> chains, ChainlinkSettings settings)
    : settings_(std::move(settings)) {
    if (!settings_.now_unix) {
        settings_.now_unix = [] {
            return std::chrono::duration_cast<std::chrono::seconds>(Clock::now().time_since_epoch())
                .count();
        };
    }
    for (auto& c : chains) {
        auto state = std::make_unique<ChainState>();
        const auto id = c.chain_id.value;
        state->client = std::make_unique<rpc::RpcClient>(
            rpc::RpcSettings{c.rpc_url, settings_.rpc_timeout,
                             std::min(settings_.rpc_timeout, std::chrono::milliseconds(2000))});
        state->config = std::move(c);
        chains_[id] = std::move(state);
    }
}

ChainlinkRateSource::~ChainlinkRateSource() = default;

Quote ChainlinkRateSource::quote(domain::money::FiatCurrency fiat, std::string_view token_symbol,
                                 domain::ChainId chain_id) {
    auto it = chains_.find(chain_id.value);
    if (it == chains_.end()) {
        throw RateUnavailable("no price feeds for chain " + std::to_string(chain_id.value), false);
    }
    ChainState& chain = *it->second;
    const std::string token_pair = std::string(token_symbol) + "/USD";
    std::vector<std::string> pairs{token_pair};
    if (fiat == domain::money::FiatCurrency::THB) pairs.emplace_back("THB/USD");
    for (const auto& p : pairs) {
        if (chain.feed(p) == nullptr) {
            throw RateUnavailable(
                "no " + p + " price feed on chain " + std::to_string(chain_id.value), false);
        }
    }

    std::lock_guard lock(chain.mutex);
    try {
        auto read = [&](const std::string& pair) {
            const PriceFeed& feed = *chain.feed(pair);
            auto dec = chain.decimals.find(pair);
            if (dec == chain.decimals.end()) {
                auto out = chain.client->eth_call(
                    {std::nullopt, feed.address, domain::Bytes(kDecimals.begin(), kDecimals.end()),
                     std::nullopt});
                auto d = detail::decode_uint8(out);
                if (!d)
                    throw RateUnavailable(pair + " feed: decimals() returned a malformed word",
                                          false);
                dec = chain.decimals.emplace(pair, *d).first;
            }
            auto out = chain.client->eth_call(
                {std::nullopt, feed.address,
                 domain::Bytes(kLatestRoundData.begin(), kLatestRoundData.end()), std::nullopt});
            auto round = detail::decode_latest_round_data(out);
            if (!round)
                throw RateUnavailable(pair + " feed: latestRoundData() returned a malformed tuple",
                                      false);
            return std::pair{*round, dec->second};
        };
        std::vector<std::pair<detail::RoundData, unsigned>> rounds;
        rounds.reserve(pairs.size());
        for (const auto& p : pairs) rounds.push_back(read(p));

        // The reference time: the later of the wall clock and the chain head (see the header).
        std::int64_t now = settings_.now_unix();
        auto head = rpc::detail::parse_block(
            chain.client->call("eth_getBlockByNumber", R"(["latest",false])"));
        if (head) now = std::max(now, static_cast<std::int64_t>(head->timestamp));

        std::vector<FeedRead> reads;
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            auto rate =
                detail::checked_rate(rounds[i].first, rounds[i].second, now, settings_.max_age);
            if (!rate) {
                throw RateUnavailable(pairs[i] + " feed on chain " +
                                          std::to_string(chain_id.value) + ": " +
                                          rate.error().message,
                                      true);
            }
            reads.push_back(FeedRead{*rate, static_cast<std::int64_t>(rounds[i].first.updated_at)});
        }
        Quote q;
        q.fiat_per_token = fiat == domain::money::FiatCurrency::THB
                               ? domain::money::fiat_per_token_via_usd(reads[0].rate, reads[1].rate)
                               : reads[0].rate;
        std::int64_t oldest = reads[0].updated_at;
        for (const auto& r : reads) oldest = std::min(oldest, r.updated_at);
        q.updated_at = Clock::time_point(std::chrono::seconds(oldest));
        q.read_at = Clock::now();
        q.source = "chainlink:" + std::to_string(chain_id.value) + ":" + pairs[0];
        if (pairs.size() > 1) q.source += "," + pairs[1];
        return q;
    } catch (const rpc::RpcError& e) {
        throw RateUnavailable(std::string("price feed read on chain ") +
                                  std::to_string(chain_id.value) + " failed: " + e.what(),
                              true);
    }
}

}  // namespace duepay::infra::rates
