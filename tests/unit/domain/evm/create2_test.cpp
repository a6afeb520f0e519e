#include "domain/evm/create2.hpp"

#include <gtest/gtest.h>

#include "domain/evm/abi.hpp"
#include "domain/evm/address.hpp"
#include "domain/evm/keccak.hpp"
#include "domain/hex.hpp"

namespace duepay::domain::evm {
namespace {

Address addr(std::string_view text) { return *parse_address(text); }
Bytes32 b32(std::string_view text) { return *from_hex_fixed<32>(text); }

struct Example {
    const char* deployer;
    const char* salt;
    const char* init_code;
    const char* result;
};

// The examples listed in EIP-1014.
class Create2Eip1014 : public ::testing::TestWithParam<Example> {};

TEST_P(Create2Eip1014, MatchesTheEip) {
    const auto& e = GetParam();
    const Bytes init_code = *from_hex(e.init_code);
    const Address got = create2_address(addr(e.deployer), b32(e.salt), keccak256(init_code));
    EXPECT_EQ(to_checksum(got), e.result);
}

INSTANTIATE_TEST_SUITE_P(
    Examples, Create2Eip1014,
    ::testing::Values(Example{"0x0000000000000000000000000000000000000000",
                              "0x0000000000000000000000000000000000000000000000000000000000000000",
                              "0x00", "0x4D1A2e2bB4F88F0250f26Ffff098B0b30B26BF38"},
                      Example{"0xdeadbeef00000000000000000000000000000000",
                              "0x0000000000000000000000000000000000000000000000000000000000000000",
                              "0x00", "0xB928f69Bb1D91Cd65274e3c79d8986362984fDA3"},
                      Example{"0xdeadbeef00000000000000000000000000000000",
                              "0x000000000000000000000000feed000000000000000000000000000000000000",
                              "0x00", "0xD04116cDd17beBE565EB2422F2497E06cC1C9833"},
                      Example{"0x0000000000000000000000000000000000000000",
                              "0x0000000000000000000000000000000000000000000000000000000000000000",
                              "0xdeadbeef", "0x70f2b2914A2a4b783FaEFb75f459A580616Fcb5e"},
                      Example{"0x00000000000000000000000000000000deadbeef",
                              "0x00000000000000000000000000000000000000000000000000000000cafebabe",
                              "0xdeadbeef", "0x60f3f640a8508fC6a86d45DF051962668E1e8AC7"},
                      Example{"0x00000000000000000000000000000000deadbeef",
                              "0x00000000000000000000000000000000000000000000000000000000cafebabe",
                              "0xdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefde"
                              "adbeefdeadbeefdeadbeef",
                              "0x1d8bfDC5D46DC4f61D6b6115972536eBE6A8854C"},
                      Example{"0x0000000000000000000000000000000000000000",
                              "0x0000000000000000000000000000000000000000000000000000000000000000",
                              "0x", "0xE33C0C7F7df4809055C3ebA6c09CFe4BaF1BD9e0"}));

TEST(DepositSalt, IsKeccakOfAbiEncodedInvoiceMerchantFee) {
    InvoiceId id;
    id.bytes.fill(0x11);
    const Address merchant = addr("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    // Computed with ethers 6.17.0: keccak256(AbiCoder.encode(["bytes32","address","uint16"], ...))
    // and getCreate2Address(0xabab...ab, salt, 0x2222...22).
    const Bytes32 salt = deposit_salt(id, merchant, 100);
    EXPECT_EQ(to_hex(salt), "0xb9fc9a2d4e88b0f2e9cc67ba2a184f5fb3b5d4806ab6ae81d7445c7875b80750");
    Address factory;
    factory.bytes.fill(0xab);
    Bytes32 init_code_hash;
    init_code_hash.fill(0x22);
    EXPECT_EQ(to_checksum(create2_address(factory, salt, init_code_hash)),
              "0x9ac1654515E3d67f1B71FcFb8A6Af482E9d36B45");
}

TEST(DepositSalt, CommitsToEveryInput) {
    InvoiceId id;
    id.bytes.fill(0x11);
    const Address merchant = addr("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    const Bytes32 base = deposit_salt(id, merchant, 100);
    EXPECT_NE(deposit_salt(id, merchant, 99), base);
    Address other = merchant;
    other.bytes[5] ^= 0x10;
    EXPECT_NE(deposit_salt(id, other, 100), base);
    InvoiceId other_id = id;
    other_id.bytes[0] = 0;
    EXPECT_NE(deposit_salt(other_id, merchant, 100), base);
}

}  // namespace
}  // namespace duepay::domain::evm
