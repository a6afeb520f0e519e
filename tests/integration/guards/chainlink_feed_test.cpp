// ChainlinkRateSource against the REAL dev anvil feeds (DUEPAY_CHAINS_FILE, var/dev.env). Reads
// the deployed feeds, moves the USDC/USD feed of chain 137 with setAnswer / setRoundData sent from
// anvil account #0 (the deployer, which owns the feeds), and restores its answer at the end. Only
// that one feed is touched, and only briefly, so other tests reading the testnet feeds are not
// disturbed. Expected values come from latestAnswer(), a different function than the adapter's.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "domain/evm/abi.hpp"
#include "domain/evm/keccak.hpp"
#include "domain/hex.hpp"
#include "infra/rates/chainlink_rate_source.hpp"
#include "infra/rpc/rpc_client.hpp"
#include "tests/integration/guards/guards_support.hpp"

namespace duepay::tests::guards {
namespace {

using domain::money::BigInt;
using domain::money::FiatCurrency;
using domain::money::Rational;
using infra::rates::ChainlinkRateSource;
using infra::rates::RateUnavailable;

const char* kAccount0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";

domain::Bytes selector(std::string_view signature) {
    const auto h = domain::evm::keccak256(signature);
    return domain::Bytes(h.begin(), h.begin() + 4);
}

domain::evm::Word int256_word(long long v) {
    if (v >= 0) return domain::evm::abi_word_u64(static_cast<std::uint64_t>(v));
    return domain::evm::abi_word(~domain::uint256(static_cast<std::uint64_t>(-v)) + 1);
}

class ChainlinkFeedIt : public ::testing::Test {
  protected:
    void SetUp() override {
        DUEPAY_REQUIRE_ENV(chains_file, "DUEPAY_CHAINS_FILE");
        std::ifstream in(chains_file);
        ASSERT_TRUE(in) << "cannot read " << chains_file;
        std::stringstream text;
        text << in.rdbuf();
        auto feeds = infra::rates::parse_chain_feeds(text.str());
        ASSERT_TRUE(feeds) << feeds.error().message;
        feeds_ = *feeds;
        for (const auto& c : feeds_) {
            if (c.chain_id.value == 137) chain137_ = c;
        }
        ASSERT_EQ(chain137_.chain_id.value, 137u) << "chain 137 missing in " << chains_file;
        rpc_ = std::make_unique<infra::rpc::RpcClient>(infra::rpc::RpcSettings{chain137_.rpc_url});
        original_usdc_ = latest_answer(feed(chain137_, "USDC/USD"));
    }
    void TearDown() override {
        if (rpc_) set_answer(original_usdc_);  // setAnswer also makes it fresh again
    }

    static domain::Address feed(const infra::rates::ChainFeeds& chain, const std::string& pair) {
        for (const auto& f : chain.feeds) {
            if (f.pair == pair) return f.address;
        }
        ADD_FAILURE() << "no feed " << pair;
        return {};
    }
    long long latest_answer(const domain::Address& address,
                            infra::rpc::RpcClient* client = nullptr) {
        auto out =
            (client ? client : rpc_.get())
                ->eth_call({std::nullopt, address, selector("latestAnswer()"), std::nullopt});
        domain::evm::Word w{};
        std::copy_n(out.begin(), 32, w.begin());
        return static_cast<long long>(domain::evm::abi_uint256(w));  // dev answers are positive
    }
    std::uint64_t send(domain::Bytes data) {
        infra::rpc::CallRequest tx{domain::Address{*domain::from_hex_fixed<20>(kAccount0)},
                                   feed(chain137_, "USDC/USD"), std::move(data), 200000};
        auto receipt = rpc_->wait_for_receipt(rpc_->send_transaction(tx), std::chrono::seconds(20));
        EXPECT_TRUE(receipt.success);
        return receipt.block_number;
    }
    std::uint64_t set_answer(long long answer) {
        auto data = selector("setAnswer(int256)");
        const auto w = int256_word(answer);
        data.insert(data.end(), w.begin(), w.end());
        return send(std::move(data));
    }
    void set_round_data(long long answer, std::uint64_t updated_at) {
        auto data = selector("setRoundData(int256,uint256)");
        for (const auto& w : {int256_word(answer), domain::evm::abi_word_u64(updated_at)}) {
            data.insert(data.end(), w.begin(), w.end());
        }
        send(std::move(data));
    }

    std::vector<infra::rates::ChainFeeds> feeds_;
    infra::rates::ChainFeeds chain137_;
    std::unique_ptr<infra::rpc::RpcClient> rpc_;
    long long original_usdc_ = 0;
};

TEST_F(ChainlinkFeedIt, ReadsTheDeployedFeedsExactly) {
    ChainlinkRateSource source(feeds_);
    for (const auto& chain : feeds_) {
        infra::rpc::RpcClient client({chain.rpc_url});
        const long long usdt = latest_answer(feed(chain, "USDT/USD"), &client);
        const long long thb = latest_answer(feed(chain, "THB/USD"), &client);
        auto usd = source.quote(FiatCurrency::USD, "USDT", chain.chain_id);
        EXPECT_EQ(usd.fiat_per_token, *Rational::make(usdt, 100000000)) << chain.chain_id.value;
        EXPECT_EQ(usd.source, "chainlink:" + std::to_string(chain.chain_id.value) + ":USDT/USD");
        auto baht = source.quote(FiatCurrency::THB, "USDT", chain.chain_id);
        EXPECT_EQ(baht.fiat_per_token, *Rational::make(usdt, thb)) << chain.chain_id.value;
        EXPECT_EQ(baht.source,
                  "chainlink:" + std::to_string(chain.chain_id.value) + ":USDT/USD,THB/USD");
        std::cout << "chain " << chain.chain_id.value
                  << ": THB per USDT = " << domain::money::to_string(baht.fiat_per_token)
                  << ", USD per USDT = " << domain::money::to_string(usd.fiat_per_token)
                  << std::endl;
        EXPECT_THROW((void)source.quote(FiatCurrency::USD, "DAI", chain.chain_id), RateUnavailable);
    }
}

TEST_F(ChainlinkFeedIt, SeesANewAnswerThenRefusesAStaleOrNonPositiveOne) {
    ChainlinkRateSource source(feeds_);
    const long long thb = latest_answer(feed(chain137_, "THB/USD"));
    const auto block = set_answer(99980000);  // 0.9998 USD per USDC
    auto usd = source.quote(FiatCurrency::USD, "USDC", chain137_.chain_id);
    EXPECT_EQ(domain::money::to_string(usd.fiat_per_token), "0.9998");
    const auto header = rpc_->block_by_number(block);
    ASSERT_TRUE(header);
    EXPECT_EQ(
        std::chrono::duration_cast<std::chrono::seconds>(usd.updated_at.time_since_epoch()).count(),
        static_cast<long long>(header->timestamp))
        << "updatedAt must be the block time of setAnswer";
    auto baht = source.quote(FiatCurrency::THB, "USDC", chain137_.chain_id);
    EXPECT_EQ(baht.fiat_per_token, *Rational::make(99980000, thb));

    // Stale: updatedAt 26 h before the later of the wall clock and the chain head (max age 25 h).
    const auto head = rpc_->block_by_number(rpc_->block_number());
    ASSERT_TRUE(head);
    const auto wall =
        static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                       std::chrono::system_clock::now().time_since_epoch())
                                       .count());
    set_round_data(99980000, std::max(wall, head->timestamp) - 26 * 3600);
    try {
        (void)source.quote(FiatCurrency::THB, "USDC", chain137_.chain_id);
        FAIL() << "a 26 h old answer was accepted";
    } catch (const RateUnavailable& e) {
        EXPECT_TRUE(e.retryable());
        EXPECT_NE(std::string(e.what()).find("old"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("USDC/USD"), std::string::npos) << e.what();
    }

    set_answer(0);
    EXPECT_THROW((void)source.quote(FiatCurrency::USD, "USDC", chain137_.chain_id),
                 RateUnavailable);
    set_answer(-5);
    EXPECT_THROW((void)source.quote(FiatCurrency::USD, "USDC", chain137_.chain_id),
                 RateUnavailable);

    set_answer(original_usdc_);
    EXPECT_EQ(source.quote(FiatCurrency::USD, "USDC", chain137_.chain_id).fiat_per_token,
              *Rational::make(original_usdc_, 100000000));
}

TEST_F(ChainlinkFeedIt, AnUnreachableNodeIsARetryableRateError) {
    infra::rates::ChainFeeds dead = chain137_;
    dead.rpc_url = "http://127.0.0.1:9";  // discard port: nothing listens
    ChainlinkRateSource source({dead});
    try {
        (void)source.quote(FiatCurrency::USD, "USDC", dead.chain_id);
        FAIL() << "expected RateUnavailable";
    } catch (const RateUnavailable& e) {
        EXPECT_TRUE(e.retryable()) << e.what();
    }
}

}  // namespace
}  // namespace duepay::tests::guards
