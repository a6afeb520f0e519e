#include "domain/evm/abi.hpp"

#include <gtest/gtest.h>

#include "domain/hex.hpp"

namespace duepay::domain::evm {
namespace {

TEST(AbiWord, Uint256IsBigEndianLeftPadded) {
    EXPECT_EQ(to_hex(abi_word(uint256(0))), "0x" + std::string(64, '0'));
    EXPECT_EQ(to_hex(abi_word(uint256(1))), "0x" + std::string(63, '0') + "1");
    EXPECT_EQ(to_hex(abi_word(uint256("0x0102030405060708090a0b0c0d0e0f10111213"))),
              "0x" + std::string(26, '0') + "0102030405060708090a0b0c0d0e0f10111213");
}

TEST(AbiWord, Uint256MaxIsAllOnes) {
    const uint256 max = ~uint256(0);
    EXPECT_EQ(to_hex(abi_word(max)), "0x" + std::string(64, 'f'));
}

TEST(AbiWord, Uint256CrossesLimbBoundaries) {
    // 2^64, 2^128 + 5 and 2^255: one bit per limb boundary.
    EXPECT_EQ(to_hex(abi_word(uint256(1) << 64)),
              "0x" + std::string(47, '0') + "1" + std::string(16, '0'));
    EXPECT_EQ(to_hex(abi_word((uint256(1) << 128) + 5)),
              "0x" + std::string(31, '0') + "1" + std::string(31, '0') + "5");
    EXPECT_EQ(to_hex(abi_word(uint256(1) << 255)), "0x8" + std::string(63, '0'));
}

TEST(AbiWord, RoundTripsThroughAbiUint256) {
    const uint256 v("0xdeadbeef00112233445566778899aabbccddeeff0123456789abcdef01234567");
    EXPECT_EQ(abi_uint256(abi_word(v)), v);
}

TEST(AbiWord, SmallIntegersAndBool) {
    EXPECT_EQ(to_hex(abi_word_u64(100)), "0x" + std::string(62, '0') + "64");
    EXPECT_EQ(to_hex(abi_word_u64(0xffff)), "0x" + std::string(60, '0') + "ffff");
    EXPECT_EQ(abi_word_u64(123456789), abi_word(uint256(123456789)));
    EXPECT_EQ(to_hex(abi_word_bool(true)), "0x" + std::string(63, '0') + "1");
    EXPECT_EQ(to_hex(abi_word_bool(false)), "0x" + std::string(64, '0'));
}

TEST(AbiWord, AddressIsRightAlignedInTwelveZeroBytes) {
    Address a;
    for (std::size_t i = 0; i < 20; ++i) a.bytes[i] = static_cast<std::uint8_t>(0xa0 + i);
    EXPECT_EQ(to_hex(abi_word(a)),
              "0x000000000000000000000000a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3");
}

TEST(AbiEncode, ConcatenatesWordsInOrder) {
    const auto encoded = abi_encode<2>({abi_word_u64(1), abi_word_u64(2)});
    EXPECT_EQ(to_hex(encoded), "0x" + std::string(63, '0') + "1" + std::string(63, '0') + "2");
}

}  // namespace
}  // namespace duepay::domain::evm
