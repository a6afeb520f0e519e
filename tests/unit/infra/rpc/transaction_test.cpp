// RLP, legacy EIP-155 signing and calldata, checked against vectors produced by ethers 6.17
// (Wallet.signTransaction, Interface.encodeFunctionData / selector / topicHash).
#include "infra/rpc/transaction.hpp"

#include <gtest/gtest.h>

#include "domain/evm/rlp.hpp"
#include "domain/hex.hpp"
#include "infra/crypto/secp256k1_signer.hpp"

namespace duepay::infra::rpc {
namespace {

using domain::Bytes;
using domain::to_hex;

domain::Address addr(std::string_view hex) {
    return domain::Address{*domain::from_hex_fixed<20>(hex)};
}

TEST(Rlp, SpecExamples) {
    using namespace domain::evm;
    const std::string dog = "dog";
    EXPECT_EQ(to_hex(rlp_bytes(Bytes(dog.begin(), dog.end()))), "0x83646f67");
    EXPECT_EQ(to_hex(rlp_bytes(Bytes{})), "0x80");
    EXPECT_EQ(to_hex(rlp_uint(0)), "0x80");
    EXPECT_EQ(to_hex(rlp_uint(15)), "0x0f");
    EXPECT_EQ(to_hex(rlp_uint(1024)), "0x820400");
    const std::string cat = "cat";
    std::vector<Bytes> items{rlp_bytes(Bytes(cat.begin(), cat.end())),
                             rlp_bytes(Bytes(dog.begin(), dog.end()))};
    EXPECT_EQ(to_hex(rlp_list(items)), "0xc88363617483646f67");
    EXPECT_EQ(to_hex(rlp_list(std::vector<Bytes>{})), "0xc0");
    const std::string lorem =
        "Lorem ipsum dolor sit amet, consectetur adipisicing elit";  // 56 bytes: long form
    EXPECT_EQ(to_hex(rlp_bytes(Bytes(lorem.begin(), lorem.end()))).substr(0, 8),
              "0xb838" + std::string("4c"));
}

TEST(LegacyTransaction, Eip155ExampleMatchesEthers) {
    auto signer = crypto::Secp256k1Signer::from_hex(
        "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318");
    ASSERT_TRUE(signer);
    LegacyTransaction tx;
    tx.nonce = 9;
    tx.gas_price = 20000000000ULL;
    tx.gas = 21000;
    tx.to = addr("0x3535353535353535353535353535353535353535");
    tx.value = domain::uint256("1000000000000000000");
    tx.chain_id = domain::ChainId{1};
    EXPECT_EQ(to_hex(sign_legacy_transaction(tx, signer.value())),
              "0xf86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400"
              "008025a0499aa1110848b1"
              "79aa0f228e20faa3ba68b350e1feeab49638c6b8ce40ea56aea0053ec9b43dcea26f8d10b43a44bdfafa"
              "e5b1b26462367921079005"
              "d4d274e06d");
}

TEST(LegacyTransaction, DevChainCallMatchesEthers) {
    auto signer = crypto::Secp256k1Signer::from_hex(
        "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318");
    ASSERT_TRUE(signer);
    LegacyTransaction tx;
    tx.nonce = 0;
    tx.gas_price = 1;
    tx.gas = 100000;
    tx.to = addr("0x5FbDB2315678afecb367f032d93F642f64180aa3");
    tx.data = erc20_transfer_calldata(domain::Address{}, 0);
    tx.chain_id = domain::ChainId{80002};
    EXPECT_EQ(to_hex(sign_legacy_transaction(tx, signer.value())),
              "0xf8a88001830186a0945fbdb2315678afecb367f032d93f642f64180aa380b844a9059cbb" +
                  std::string(128, '0') +
                  "83027128a0d3d52b045a14182e6b0146245d155432dd492beeb6efa9b987bc6b3c24ff7723a028ab"
                  "69818616d46d845f3ad75ef2d3bc"
                  "0d8a9dbb7d78f0ceeb50402ed1c9db2d");
}

TEST(Calldata, SelectorsAndTopicsMatchTheCompiledAbi) {
    EXPECT_EQ(to_hex(selector("pay((bytes32,address,address,uint256,uint16,uint256),bytes)")),
              "0x0b11d21f");
    EXPECT_EQ(to_hex(selector("settle(bytes32,address,uint16,address)")), "0x2eb37326");
    EXPECT_EQ(to_hex(invoice_paid_topic()),
              "0x4d3d6858320ff9bfdf6a2ad59bf3aab8f6c2a4fb4ee10059993a77cdbf43e799");
    EXPECT_EQ(to_hex(settled_topic()),
              "0x2b48913bcaac5ca8fccdc740976517c444980bc382c153617621804fc277a184");
    EXPECT_EQ(to_hex(transfer_topic()),
              "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef");
}

TEST(Calldata, RouterPayMatchesEthers) {
    domain::evm::PaymentIntent intent;
    intent.invoice_id.bytes.fill(0x11);
    intent.merchant = addr("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    intent.token = addr("0x5FbDB2315678afecb367f032d93F642f64180aa3");
    intent.amount = domain::TokenAmount{1234567};
    intent.fee_bps = 100;
    intent.deadline = 1800000000;
    domain::evm::Signature sig;
    sig.bytes.fill(0xab);
    const std::string ab65 = [] {
        std::string s;
        for (int i = 0; i < 65; ++i) s += "ab";
        return s;
    }();
    EXPECT_EQ(to_hex(router_pay_calldata(intent, sig)),
              "0x0b11d21f" + std::string(64, '1') +
                  "00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8" +
                  "0000000000000000000000005fbdb2315678afecb367f032d93f642f64180aa3" +
                  "000000000000000000000000000000000000000000000000000000000012d687" +
                  "0000000000000000000000000000000000000000000000000000000000000064" +
                  "000000000000000000000000000000000000000000000000000000006b49d200" +
                  "00000000000000000000000000000000000000000000000000000000000000e0" +
                  "0000000000000000000000000000000000000000000000000000000000000041" + ab65 +
                  std::string(62, '0'));
}

}  // namespace
}  // namespace duepay::infra::rpc
