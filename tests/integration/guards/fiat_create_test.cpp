// Fiat-priced creation through the real HTTP API: `duepay dev` (api + projector) on a fresh topic,
// rates from the real dev anvil feeds of chain 80002, the expected token amount computed here from
// latestAnswer() (not the adapter's latestRoundData path) with big integers. No feed is modified.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <boost/multiprecision/cpp_int.hpp>

#include "domain/evm/abi.hpp"
#include "domain/evm/keccak.hpp"
#include "domain/hex.hpp"
#include "infra/rpc/rpc_client.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests {
namespace {

using boost::multiprecision::cpp_int;

cpp_int latest_answer(infra::rpc::RpcClient& rpc, const std::string& feed_hex) {
    const auto sel = domain::evm::keccak256(std::string_view("latestAnswer()"));
    auto out = rpc.eth_call({std::nullopt, domain::Address{*domain::from_hex_fixed<20>(feed_hex)},
                             domain::Bytes(sel.begin(), sel.begin() + 4), std::nullopt});
    domain::evm::Word w{};
    std::copy_n(out.begin(), 32, w.begin());
    return cpp_int(domain::evm::abi_uint256(w));
}

// ceil(minor * 10^decimals * (10000 + buffer) / (100 * 10000 * rate)), rate = num/den.
std::string expected_amount(long long minor, int decimals, int buffer, const cpp_int& num,
                            const cpp_int& den) {
    cpp_int scale = 1;
    for (int i = 0; i < decimals; ++i) scale *= 10;
    const cpp_int n = cpp_int(minor) * scale * (10000 + buffer) * den;
    const cpp_int d = cpp_int(100) * 10000 * num;
    cpp_int q = n / d;
    if (q * d != n) q += 1;
    return q.str();
}

rapidjson::Document parse(const std::string& body) {
    rapidjson::Document d;
    d.Parse(body.c_str());
    EXPECT_FALSE(d.HasParseError()) << body;
    return d;
}

TEST(FiatCreateIt, ThbAndUsdPricesBecomeTokenAmountsFromTheLiveFeeds) {
    DUEPAY_REQUIRE_STACK(env);
    const char* rpc_url = std::getenv("DUEPAY_RPC_URL_80002");
    const char* usdt_feed = std::getenv("DUEPAY_PRICE_FEED_USDT_USD_80002");
    const char* thb_feed = std::getenv("DUEPAY_PRICE_FEED_THB_USD_80002");
    if (!rpc_url || !usdt_feed || !thb_feed)
        GTEST_SKIP() << "DUEPAY_RPC_URL_80002 / DUEPAY_PRICE_FEED_*_80002 not set";
    auto server = start_dev_server(env, "fiat", 2, {{"DUEPAY_FIAT_BUFFER_BPS", "100"}});
    const std::string key = demo_key(env);
    ASSERT_FALSE(key.empty());
    infra::rpc::RpcClient rpc({rpc_url});
    const cpp_int usdt = latest_answer(rpc, usdt_feed);  // USD per USDT * 1e8
    const cpp_int thb = latest_answer(rpc, thb_feed);    // USD per THB * 1e8

    auto created =
        http("POST", server.base_url + "/v1/invoices",
             {{"x-api-key", key}, {"content-type", "application/json"}},
             R"({"chainId":80002,"fiat":{"currency":"THB","amount":"350.00"},"token":"USDT"})");
    ASSERT_EQ(created.status, 201) << created.body << "\n" << server.process->log();
    auto c = parse(created.body);
    const auto& data = c["data"];
    // THB per USDT = usdt / thb; buffer 100 bps; USDT has 6 decimals.
    const std::string want = expected_amount(35000, 6, 100, usdt, thb);
    EXPECT_EQ(std::string(data["amount"].GetString()), want);
    ASSERT_TRUE(data.HasMember("fiat")) << created.body;
    EXPECT_EQ(std::string(data["fiat"]["currency"].GetString()), "THB");
    EXPECT_EQ(std::string(data["fiat"]["amount"].GetString()), "350.00");
    EXPECT_EQ(std::string(data["fiat"]["tokenAmount"].GetString()), want);
    EXPECT_EQ(std::string(data["intent"]["amount"].GetString()), want);
    // The quote a merchant can audit: the exact rate (THB per USDT = usdt / thb), its source,
    // the buffer and when it was read.
    ASSERT_TRUE(data["fiat"].HasMember("rate") && data["fiat"]["rate"].IsString()) << created.body;
    EXPECT_EQ(std::string(data["fiat"]["rateSource"].GetString()).rfind("chainlink", 0), 0u)
        << created.body;
    EXPECT_EQ(data["fiat"]["bufferBps"].GetInt(), 100);
    EXPECT_GE(std::string(data["fiat"]["rateReadAt"].GetString()).size(), 20u);
    std::cout << "THB 350.00 -> " << want << " USDT units (feeds " << usdt << ", " << thb
              << ", buffer 100 bps)" << std::endl;

    // The read model carries the same breakdown (from the charge.created event).
    const std::string id = data["invoiceId"].GetString();
    auto read = http("GET", server.base_url + "/v1/charges/" + id, {{"x-api-key", key}});
    ASSERT_EQ(read.status, 200) << read.body;
    auto r = parse(read.body);
    ASSERT_TRUE(r["data"].HasMember("fiat")) << read.body;
    EXPECT_EQ(std::string(r["data"]["fiat"]["tokenAmount"].GetString()), want);
    EXPECT_EQ(std::string(r["data"]["fiat"]["rate"].GetString()),
              std::string(data["fiat"]["rate"].GetString()));
    EXPECT_EQ(r["data"]["fiat"]["bufferBps"].GetInt(), 100);

    auto usd = http("POST", server.base_url + "/v1/invoices",
                    {{"x-api-key", key}, {"content-type", "application/json"}},
                    R"({"chainId":80002,"fiat":{"currency":"USD","amount":"12.34"}})");
    ASSERT_EQ(usd.status, 201) << usd.body;
    EXPECT_EQ(std::string(parse(usd.body)["data"]["amount"].GetString()),
              expected_amount(1234, 6, 100, usdt, cpp_int(100000000)));

    auto bad = http("POST", server.base_url + "/v1/invoices",
                    {{"x-api-key", key}, {"content-type", "application/json"}},
                    R"({"chainId":80002,"fiat":{"currency":"USD","amount":"1.234"}})");
    EXPECT_EQ(bad.status, 400) << bad.body;
    EXPECT_EQ(std::string(parse(bad.body)["meta"]["code"].GetString()), "invalid_fiat_amount");
    EXPECT_EQ(server.process->stop(), 0);
}

TEST(FiatCreateIt, AStaleRateIsA503AndNoCharge) {
    DUEPAY_REQUIRE_STACK(env);
    // A 1 s maximum age makes the deployed feeds (set when the chain was deployed) too old.
    auto server = start_dev_server(env, "fiatstale", 2, {{"DUEPAY_RATE_MAX_AGE_SECONDS", "1"}});
    const std::string key = demo_key(env);
    auto r = http("POST", server.base_url + "/v1/invoices",
                  {{"x-api-key", key}, {"content-type", "application/json"}},
                  R"({"chainId":80002,"fiat":{"currency":"THB","amount":"100.00"}})");
    EXPECT_EQ(r.status, 503) << r.body;
    auto d = parse(r.body);
    EXPECT_EQ(std::string(d["meta"]["code"].GetString()), "rate_unavailable");
    EXPECT_TRUE(d["meta"].HasMember("retryAfterMs"));
    // Token-priced creation is unaffected.
    auto ok = http("POST", server.base_url + "/v1/invoices",
                   {{"x-api-key", key}, {"content-type", "application/json"}},
                   R"({"chainId":80002,"amount":"1000000"})");
    EXPECT_EQ(ok.status, 201) << ok.body;
    EXPECT_EQ(server.process->stop(), 0);
}

}  // namespace
}  // namespace duepay::tests
