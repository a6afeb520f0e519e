#include "infra/crypto/secp256k1_signer.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "domain/evm/abi.hpp"
#include "domain/evm/address.hpp"
#include "domain/evm/eip191.hpp"
#include "domain/evm/keccak.hpp"
#include "domain/hex.hpp"

namespace duepay::infra::crypto {
namespace {

using domain::to_hex;
using domain::uint256;
using domain::evm::to_checksum;

const uint256 kOrder("0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");

Bytes32 b32(std::string_view hex) { return *domain::from_hex_fixed<32>(hex); }
Bytes32 key_of(std::uint64_t small) { return domain::evm::abi_word_u64(small); }

Secp256k1Signer signer_of(const Bytes32& key) {
    auto s = Secp256k1Signer::from_private_key(key);
    if (!s) throw std::invalid_argument(s.error().message);
    return std::move(s).value();
}

TEST(Secp256k1Signer, AddressOfWellKnownKeys) {
    // Private key 1's address (the generator point's) is a well-known constant.
    EXPECT_EQ(to_checksum(signer_of(key_of(1)).address()),
              "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf");
    // EIP-712 spec example: the key is keccak256("cow").
    EXPECT_EQ(to_checksum(signer_of(domain::evm::keccak256(std::string_view("cow"))).address()),
              "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826");
}

TEST(Secp256k1Signer, SignsTheEip712MailExampleLikeTheSpecAndEthers) {
    // RFC 6979 nonces make ECDSA deterministic, so the signature must equal the one in the EIP-712
    // example (and ethers 6.17.0's signingKey.sign of the same digest).
    const auto signer = signer_of(domain::evm::keccak256(std::string_view("cow")));
    const auto sig = signer.sign_digest(
        b32("0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2"));
    EXPECT_EQ(to_hex(sig.bytes),
              "0x4355c47d63924e8a72e509b65029052eb6c299d53a04e167c5775fd466751c9d"
              "07299936d304c153f6443dfa05f40ff007d72911b6f72307f996231605b91562"
              "1c");
}

TEST(Secp256k1Signer, SignsTheDuepayIntentLikeEthers) {
    // Digest from domain/evm eip712_test (DuepayIntentMatchesEthers); signature from ethers 6.17.0.
    const auto sig = signer_of(key_of(1)).sign_digest(
        b32("0x412c923673712f2c182ac445fb0360bc5809bb4505796e3d3de6973ebb2523fa"));
    EXPECT_EQ(to_hex(sig.bytes),
              "0x3333c4962b7a2b2cc890e46f9ccf607f5246ec19be68badcd52c1c7955ae14c2"
              "12e68ecc1f652f5c0560882a911a52ce5775540ae5f73b892e33bbb498eb678f"
              "1c");
}

TEST(Secp256k1Signer, RejectsZeroAndOutOfRangeKeys) {
    for (const Bytes32& bad :
         {Bytes32{}, domain::evm::abi_word(kOrder), domain::evm::abi_word(kOrder + 1),
          b32("0x" + std::string(64, 'f'))}) {
        auto s = Secp256k1Signer::from_private_key(bad);
        ASSERT_FALSE(s) << to_hex(bad);
        EXPECT_EQ(s.error().code, "invalid_private_key");
    }
    EXPECT_NE(Secp256k1Signer::from_private_key(Bytes32{}).error().message.find("zero"),
              std::string::npos);
    EXPECT_NE(Secp256k1Signer::from_private_key(domain::evm::abi_word(kOrder))
                  .error()
                  .message.find("order"),
              std::string::npos);
    EXPECT_TRUE(Secp256k1Signer::from_private_key(domain::evm::abi_word(kOrder - 1)));
}

TEST(Secp256k1Signer, FromHexValidatesTheTextWithoutEchoingIt) {
    const std::string good = "0x" + std::string(63, '0') + "1";
    auto s = Secp256k1Signer::from_hex(good);
    ASSERT_TRUE(s);
    EXPECT_EQ(to_checksum(s->address()), "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf");

    const std::string secretish = "0x" + std::string(63, 'a') + "z";
    for (const std::string& bad : {std::string(64, '1'), "0x" + std::string(62, '1'), secretish}) {
        auto r = Secp256k1Signer::from_hex(bad);
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().code, "invalid_private_key");
        EXPECT_EQ(r.error().message.find("aaaa"), std::string::npos);
    }
}

TEST(Secp256k1Signer, RoundTripThroughThePortAndRecovery) {
    for (std::uint64_t k = 1; k <= 20; ++k) {
        const Bytes32 key = domain::evm::keccak256(std::string_view("key-" + std::to_string(k)));
        std::unique_ptr<ports::Signer> signer = std::make_unique<Secp256k1Signer>(signer_of(key));
        for (int m = 0; m < 10; ++m) {
            const Bytes32 digest =
                domain::evm::keccak256(std::string_view("msg-" + std::to_string(k * 100 + m)));
            const Signature sig = signer->sign_digest(digest);
            ASSERT_TRUE(sig.bytes[64] == 27 || sig.bytes[64] == 28);
            std::array<std::uint8_t, 32> s{};
            std::copy_n(sig.bytes.begin() + 32, 32, s.begin());
            ASSERT_LE(domain::evm::abi_uint256(s), kOrder / 2) << "high-s produced";
            auto recovered = recover_signer(digest, sig);
            ASSERT_TRUE(recovered) << recovered.error().message;
            ASSERT_EQ(*recovered, signer->address());
        }
    }
}

TEST(Secp256k1Signer, SignsEip191ChallengesThatRecover) {
    const auto signer = signer_of(key_of(42));
    const Bytes32 digest = domain::evm::personal_message_hash("duepay wallet challenge 123");
    auto recovered = recover_signer(digest, signer.sign_digest(digest));
    ASSERT_TRUE(recovered);
    EXPECT_EQ(*recovered, signer.address());
}

class RecoverSigner : public ::testing::Test {
  protected:
    const Bytes32 digest = domain::evm::keccak256(std::string_view("recover me"));
    const Secp256k1Signer signer = signer_of(key_of(7));
    const Signature good = signer.sign_digest(digest);
};

TEST_F(RecoverSigner, ADifferentDigestRecoversADifferentAddress) {
    Bytes32 other = digest;
    other[0] ^= 1;
    auto recovered = recover_signer(other, good);
    // Either a different key recovers or none does; never the signer.
    if (recovered) {
        EXPECT_NE(*recovered, signer.address());
    }
}

TEST_F(RecoverSigner, RejectsVOutsideTwentySevenAndTwentyEight) {
    for (std::uint8_t v : {0, 1, 26, 29, 30, 255}) {
        Signature bad = good;
        bad.bytes[64] = v;
        auto r = recover_signer(digest, bad);
        ASSERT_FALSE(r) << int(v);
        EXPECT_EQ(r.error().code, "invalid_signature");
        EXPECT_NE(r.error().message.find("27 or 28"), std::string::npos);
    }
}

TEST_F(RecoverSigner, RejectsTheHighSTwinOfAValidSignature) {
    // (r, n - s, v ^ 1) is the same signature in malleable form: ecrecover would accept it,
    // OpenZeppelin's ECDSA and we do not.
    std::array<std::uint8_t, 32> s{};
    std::copy_n(good.bytes.begin() + 32, 32, s.begin());
    const auto high_s = domain::evm::abi_word(kOrder - domain::evm::abi_uint256(s));
    Signature twin = good;
    std::copy(high_s.begin(), high_s.end(), twin.bytes.begin() + 32);
    twin.bytes[64] = good.bytes[64] == 27 ? 28 : 27;
    auto r = recover_signer(digest, twin);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, "invalid_signature");
    EXPECT_NE(r.error().message.find("high-s"), std::string::npos);
}

TEST_F(RecoverSigner, RejectsZeroOrOverflowingROrS) {
    auto with = [&](std::size_t offset, const Bytes32& value) {
        Signature sig = good;
        std::copy(value.begin(), value.end(),
                  sig.bytes.begin() + static_cast<std::ptrdiff_t>(offset));
        return recover_signer(digest, sig);
    };
    for (const auto& r :
         {with(0, Bytes32{}), with(32, Bytes32{}), with(0, domain::evm::abi_word(kOrder)),
          with(32, domain::evm::abi_word(kOrder)), with(0, b32("0x" + std::string(64, 'f')))}) {
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, "invalid_signature");
    }
}

TEST(AddressOfPublicKey, GeneratorPointIsTheAddressOfKeyOne) {
    const auto uncompressed = *domain::from_hex(
        "0x0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
        "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8");
    const auto compressed =
        *domain::from_hex("0x0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798");
    auto a = address_of_public_key(uncompressed);
    auto b = address_of_public_key(compressed);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(to_checksum(*a), "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf");
    EXPECT_EQ(*a, *b);
}

TEST(AddressOfPublicKey, RejectsAPointOffTheCurve) {
    domain::Bytes bad(65, 0);
    bad[0] = 0x04;
    bad[64] = 1;
    auto a = address_of_public_key(bad);
    ASSERT_FALSE(a);
    EXPECT_EQ(a.error().code, "invalid_public_key");
}

}  // namespace
}  // namespace duepay::infra::crypto
