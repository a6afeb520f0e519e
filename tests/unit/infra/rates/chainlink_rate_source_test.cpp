// ABI decoding of latestRoundData()/decimals(), the freshness checks and the priceFeeds parser.
#include "infra/rates/chainlink_rate_source.hpp"

#include <gtest/gtest.h>

#include "domain/evm/abi.hpp"

namespace duepay::infra::rates {
namespace {

using domain::money::Rational;

domain::Bytes words(std::initializer_list<domain::evm::Word> ws) {
    domain::Bytes out;
    for (const auto& w : ws) out.insert(out.end(), w.begin(), w.end());
    return out;
}

domain::evm::Word u(std::uint64_t v) { return domain::evm::abi_word_u64(v); }
domain::evm::Word minus_one() {
    domain::evm::Word w;
    w.fill(0xff);
    return w;
}

TEST(ChainlinkDecode, LatestRoundDataReadsTheFiveWords) {
    auto r = detail::decode_latest_round_data(
        words({u(7), u(100010000), u(1700000000), u(1700000123), u(7)}));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->round_id, 7);
    EXPECT_EQ(r->answer, 100010000);
    EXPECT_EQ(r->started_at, 1700000000u);
    EXPECT_EQ(r->updated_at, 1700000123u);
    EXPECT_EQ(r->answered_in_round, 7);
}

TEST(ChainlinkDecode, AnswerIsSignedTwosComplement) {
    auto r = detail::decode_latest_round_data(words({u(1), minus_one(), u(1), u(1), u(1)}));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->answer, -1);
    domain::evm::Word min{};
    min[0] = 0x80;  // int256 minimum
    r = detail::decode_latest_round_data(words({u(1), min, u(1), u(1), u(1)}));
    ASSERT_TRUE(r);
    EXPECT_LT(r->answer, 0);
    EXPECT_EQ(-r->answer, domain::money::BigInt(1) << 255);
}

TEST(ChainlinkDecode, WrongLengthIsRejected) {
    auto five = words({u(1), u(2), u(3), u(4), u(5)});
    EXPECT_FALSE(detail::decode_latest_round_data(std::span(five).first(159)));
    five.push_back(0);
    EXPECT_FALSE(detail::decode_latest_round_data(five));
    EXPECT_FALSE(detail::decode_latest_round_data({}));
}

TEST(ChainlinkDecode, DecimalsIsOneUint8Word) {
    EXPECT_EQ(detail::decode_uint8(words({u(8)})), 8u);
    EXPECT_EQ(detail::decode_uint8(words({u(255)})), 255u);
    EXPECT_FALSE(detail::decode_uint8(words({u(256)})));
    EXPECT_FALSE(detail::decode_uint8(words({u(8), u(8)})));
}

detail::RoundData round(std::int64_t answer, std::uint64_t updated, std::uint64_t id = 3,
                        std::uint64_t answered = 3) {
    detail::RoundData r;
    r.round_id = id;
    r.answer = answer;
    r.started_at = updated;
    r.updated_at = updated;
    r.answered_in_round = answered;
    return r;
}

TEST(ChainlinkChecks, FreshPositiveAnswerIsTheExactRate) {
    auto rate =
        detail::checked_rate(round(2850000, 1000), 8, 1000 + 3600, std::chrono::seconds(3600));
    ASSERT_TRUE(rate) << rate.error().message;
    EXPECT_EQ(domain::money::to_string(*rate), "0.0285");
}

TEST(ChainlinkChecks, OldAnswerIsStale) {
    auto rate =
        detail::checked_rate(round(2850000, 1000), 8, 1000 + 3601, std::chrono::seconds(3600));
    ASSERT_FALSE(rate);
    EXPECT_EQ(rate.error().code, "stale_rate");
}

TEST(ChainlinkChecks, NonPositiveAnswerIsInvalid) {
    EXPECT_EQ(detail::checked_rate(round(0, 1000), 8, 1000, std::chrono::seconds(60)).error().code,
              "invalid_rate");
    EXPECT_EQ(detail::checked_rate(round(-5, 1000), 8, 1000, std::chrono::seconds(60)).error().code,
              "invalid_rate");
}

TEST(ChainlinkChecks, UnfinishedOrCarriedOverRoundIsStale) {
    EXPECT_EQ(detail::checked_rate(round(1, 0), 8, 1000, std::chrono::seconds(60)).error().code,
              "stale_rate");
    EXPECT_EQ(
        detail::checked_rate(round(1, 1000, 4, 3), 8, 1000, std::chrono::seconds(60)).error().code,
        "stale_rate");
}

TEST(ChainlinkChecks, FarFutureUpdatedAtIsRefusedButSmallSkewIsNot) {
    EXPECT_TRUE(detail::checked_rate(round(1, 1300), 8, 1000, std::chrono::seconds(60)));
    EXPECT_FALSE(detail::checked_rate(round(1, 1301), 8, 1000, std::chrono::seconds(60)));
}

TEST(ChainlinkFeeds, ParsesPriceFeedsOfEveryChain) {
    auto feeds = parse_chain_feeds(R"({"chains":[
      {"chainId":80002,"rpcUrl":"http://127.0.0.1:18546","priceFeeds":[
        {"pair":"THB/USD","address":"0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9","decimals":8},
        {"pair":"USDT/USD","address":"0x5FC8d32690cc91D4c39d9d3abcBD16989F875707","decimals":8}]},
      {"chainId":137,"rpcUrl":"http://127.0.0.1:18545"}]})");
    ASSERT_TRUE(feeds) << feeds.error().message;
    ASSERT_EQ(feeds->size(), 2u);
    EXPECT_EQ((*feeds)[0].chain_id.value, 80002u);
    EXPECT_EQ((*feeds)[0].rpc_url, "http://127.0.0.1:18546");
    ASSERT_EQ((*feeds)[0].feeds.size(), 2u);
    EXPECT_EQ((*feeds)[0].feeds[1].pair, "USDT/USD");
    EXPECT_EQ((*feeds)[0].feeds[1].address.bytes[0], 0x5f);
    EXPECT_TRUE((*feeds)[1].feeds.empty());
}

TEST(ChainlinkFeeds, MalformedFeedIsAnError) {
    auto feeds = parse_chain_feeds(
        R"({"chains":[{"chainId":1,"rpcUrl":"x","priceFeeds":[{"pair":"THB/USD","address":"0x12"}]}]})");
    ASSERT_FALSE(feeds);
    EXPECT_EQ(feeds.error().code, "invalid_chain_registry");
    EXPECT_FALSE(parse_chain_feeds("[]"));
}

TEST(ChainlinkSource, UnknownChainOrMissingFeedIsNotRetryable) {
    ChainlinkRateSource source({ChainFeeds{domain::ChainId{1}, "http://127.0.0.1:9", {}}});
    try {
        (void)source.quote(domain::money::FiatCurrency::USD, "USDT", domain::ChainId{2});
        FAIL() << "expected RateUnavailable";
    } catch (const RateUnavailable& e) {
        EXPECT_FALSE(e.retryable());
    }
    try {
        (void)source.quote(domain::money::FiatCurrency::USD, "USDT", domain::ChainId{1});
        FAIL() << "expected RateUnavailable";
    } catch (const RateUnavailable& e) {
        EXPECT_FALSE(e.retryable());
        EXPECT_NE(std::string(e.what()).find("USDT/USD"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace duepay::infra::rates
