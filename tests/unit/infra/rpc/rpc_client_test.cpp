// JSON-RPC request encoding and response parsing, without a network.
#include "infra/rpc/rpc_client.hpp"

#include <gtest/gtest.h>

#include "domain/hex.hpp"

namespace duepay::infra::rpc {
namespace {

using detail::encode_log_filter;
using detail::encode_request;
using detail::quantity;
using detail::result_json;

Bytes32 h32(char fill) {
    Bytes32 b{};
    b.fill(static_cast<std::uint8_t>(fill));
    return b;
}

TEST(RpcEncode, RequestEnvelope) {
    EXPECT_EQ(encode_request(7, "eth_blockNumber", "[]"),
              R"({"jsonrpc":"2.0","id":7,"method":"eth_blockNumber","params":[]})");
}

TEST(RpcEncode, QuantitiesHaveNoLeadingZeros) {
    EXPECT_EQ(quantity(std::uint64_t{0}), "0x0");
    EXPECT_EQ(quantity(std::uint64_t{1}), "0x1");
    EXPECT_EQ(quantity(std::uint64_t{0x1a2b}), "0x1a2b");
    EXPECT_EQ(quantity(uint256(1) << 200), "0x1" + std::string(50, '0'));
}

TEST(RpcEncode, LogFilterWithAddressesAndTopicAlternatives) {
    LogFilter f;
    f.from_block = 16;
    f.to_block = 31;
    f.addresses = {Address{}, Address{}};
    f.addresses[1].bytes.fill(0xab);
    f.topics = {{h32(1)}, {}, {h32(2), h32(3)}};
    const std::string zero40(40, '0');
    const std::string ab40 = [] {
        std::string s;
        for (int i = 0; i < 20; ++i) s += "ab";
        return s;
    }();
    const std::string expected = R"({"fromBlock":"0x10","toBlock":"0x1f","address":["0x)" + zero40 +
                                 R"(","0x)" + ab40 + R"("],"topics":[[")" + domain::to_hex(h32(1)) +
                                 R"("],null,[")" + domain::to_hex(h32(2)) + R"(",")" +
                                 domain::to_hex(h32(3)) + R"("]]})";
    EXPECT_EQ(encode_log_filter(f), expected);
}

TEST(RpcParse, ResultIsExtractedAsJson) {
    EXPECT_EQ(result_json(R"({"jsonrpc":"2.0","id":1,"result":"0x89"})"), "\"0x89\"");
    EXPECT_EQ(detail::parse_u64(result_json(R"({"jsonrpc":"2.0","id":1,"result":"0x13882"})")),
              80002u);
    EXPECT_EQ(result_json(R"({"id":1,"result":null})"), "null");
}

TEST(RpcParse, ErrorObjectIsNotRetryableUnlessInternal) {
    try {
        (void)result_json(
            R"({"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted"}})");
        FAIL() << "no throw";
    } catch (const RpcError& e) {
        EXPECT_FALSE(e.retryable());
        EXPECT_EQ(e.code(), 3);
        EXPECT_NE(std::string(e.what()).find("execution reverted"), std::string::npos);
    }
    try {
        (void)result_json(R"({"id":1,"error":{"code":-32603,"message":"internal"}})");
        FAIL() << "no throw";
    } catch (const RpcError& e) {
        EXPECT_TRUE(e.retryable());
    }
}

TEST(RpcParse, MalformedBodyIsRetryable) {
    try {
        (void)result_json("<html>bad gateway");
        FAIL() << "no throw";
    } catch (const RpcError& e) {
        EXPECT_TRUE(e.retryable());
    }
}

TEST(RpcParse, QuantityRejectsGarbage) {
    EXPECT_THROW(detail::parse_u64("\"12\""), RpcError);
    EXPECT_THROW(detail::parse_u64("\"0xzz\""), RpcError);
    EXPECT_THROW(detail::parse_u64("\"0x1ffffffffffffffff\""), RpcError);  // over 64 bits
    EXPECT_EQ(detail::parse_u256("\"0x1ffffffffffffffff\""), (uint256(1) << 65) - 1);
}

TEST(RpcParse, BlockHeader) {
    const std::string json = R"({"number":"0x2a","hash":")" + domain::to_hex(h32(5)) +
                             R"(","parentHash":")" + domain::to_hex(h32(4)) +
                             R"(","timestamp":"0x6553f100","transactions":[]})";
    const auto b = detail::parse_block(json);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->number, 42u);
    EXPECT_EQ(b->hash, h32(5));
    EXPECT_EQ(b->parent_hash, h32(4));
    EXPECT_EQ(b->timestamp, 0x6553f100u);
    EXPECT_FALSE(detail::parse_block("null"));
    EXPECT_THROW(detail::parse_block(R"({"number":"0x1"})"), RpcError);
}

TEST(RpcParse, Logs) {
    const std::string json =
        R"([{"address":"0x5fbdb2315678afecb367f032d93f642f64180aa3","topics":[")" +
        domain::to_hex(h32(1)) + R"(",")" + domain::to_hex(h32(2)) +
        R"("],"data":"0x00ff","blockNumber":"0x10","blockHash":")" + domain::to_hex(h32(3)) +
        R"(","transactionHash":")" + domain::to_hex(h32(9)) +
        R"(","transactionIndex":"0x0","logIndex":"0x3","removed":false}])";
    const auto logs = detail::parse_logs(json);
    ASSERT_EQ(logs.size(), 1u);
    EXPECT_EQ(domain::to_hex(logs[0].address.bytes), "0x5fbdb2315678afecb367f032d93f642f64180aa3");
    ASSERT_EQ(logs[0].topics.size(), 2u);
    EXPECT_EQ(logs[0].topics[1], h32(2));
    EXPECT_EQ(logs[0].data, (Bytes{0x00, 0xff}));
    EXPECT_EQ(logs[0].block_number, 16u);
    EXPECT_EQ(logs[0].tx_hash, h32(9));
    EXPECT_EQ(logs[0].log_index, 3u);
    EXPECT_FALSE(logs[0].removed);
    EXPECT_TRUE(detail::parse_logs("[]").empty());
    EXPECT_THROW(detail::parse_logs("{}"), RpcError);
}

TEST(RpcParse, Receipt) {
    const std::string json = R"({"transactionHash":")" + domain::to_hex(h32(9)) +
                             R"(","status":"0x0","blockNumber":"0x5","blockHash":")" +
                             domain::to_hex(h32(3)) + R"(","logs":[]})";
    const auto r = detail::parse_receipt(json);
    ASSERT_TRUE(r);
    EXPECT_FALSE(r->success);
    EXPECT_EQ(r->block_number, 5u);
    EXPECT_FALSE(detail::parse_receipt("null"));
}

TEST(RpcClientNetwork, UnreachableNodeIsRetryable) {
    RpcClient client(RpcSettings{"http://127.0.0.1:1", std::chrono::milliseconds(500),
                                 std::chrono::milliseconds(200)});
    try {
        (void)client.block_number();
        FAIL() << "no throw";
    } catch (const RpcError& e) {
        EXPECT_TRUE(e.retryable());
    }
}

TEST(RpcClientNetwork, ErrorsNameTheHostNeverTheProviderKey) {
    RpcClient client(RpcSettings{"http://user:s3cret@127.0.0.1:1/v3/KEY0123456789?apikey=QQQ",
                                 std::chrono::milliseconds(500), std::chrono::milliseconds(200)});
    try {
        (void)client.block_number();
        FAIL() << "no throw";
    } catch (const RpcError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("http://127.0.0.1:1"), std::string::npos) << what;
        for (const char* secret : {"s3cret", "KEY0123456789", "QQQ", "user"}) {
            EXPECT_EQ(what.find(secret), std::string::npos) << what;
        }
    }
}

}  // namespace
}  // namespace duepay::infra::rpc
