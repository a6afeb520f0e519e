// A Sign-In with Ethereum message (domain/accounts/siwe) signed with personal_sign recovers,
// through the secp256k1 adapter, to the message's own address: the domain gives the hash, infra
// recovers (docs/adr/0210-siwe-messages.md). Kept out of tests/unit/domain: this binary links
// libsecp256k1.
#include <gtest/gtest.h>

#include "domain/accounts/siwe.hpp"
#include "domain/evm/address.hpp"
#include "domain/hex.hpp"
#include "infra/crypto/secp256k1_signer.hpp"
#include "tests/support/siwe_vectors.hpp"

namespace duepay::infra::crypto {
namespace {

namespace siwe = domain::accounts::siwe;

using tests::siwe_vectors::kDevAddress;
using tests::siwe_vectors::kDevKey;
using tests::siwe_vectors::kEthersHash;
using tests::siwe_vectors::kEthersSignature;
const std::string& kText = tests::siwe_vectors::kFull;

Signature signature_of(std::string_view hex) {
    auto bytes = domain::from_hex_fixed<65>(hex);
    if (!bytes) throw std::invalid_argument("bad signature hex");
    return Signature{*bytes};
}

TEST(SiweSignature, TheSigningHashIsWhatEthersHashes) {
    const auto message = siwe::parse(kText);
    ASSERT_TRUE(message) << message.error().message;
    EXPECT_EQ(domain::to_hex(siwe::signing_hash(*message)), kEthersHash);
}

TEST(SiweSignature, AnEthersSignatureRecoversToTheMessageAddress) {
    const auto message = *siwe::parse(kText);
    const auto signer = recover_signer(siwe::signing_hash(message), signature_of(kEthersSignature));
    ASSERT_TRUE(signer) << signer.error().message;
    EXPECT_EQ(*signer, message.address);
}

TEST(SiweSignature, OurSignerSignsLikeEthersAndRecovers) {
    const auto message = *siwe::parse(kText);
    const auto signer = Secp256k1Signer::from_hex(kDevKey);
    ASSERT_TRUE(signer);
    EXPECT_EQ(signer->address(), message.address);
    const auto sig = signer->sign_digest(siwe::signing_hash(message));
    EXPECT_EQ(domain::to_hex(sig.bytes), kEthersSignature);  // RFC 6979: deterministic
    EXPECT_EQ(recover_signer(siwe::signing_hash(message), sig).value(), message.address);
}

TEST(SiweSignature, AChangedFieldRecoversToSomeoneElse) {
    // The signature covers every field: a relayed message with another nonce (or domain, or
    // expiry) does not recover to the signer, so check() and recovery together refuse it.
    auto message = *siwe::parse(kText);
    message.nonce = "k3Jd8sQ2pL9y";
    const auto signer = recover_signer(siwe::signing_hash(message), signature_of(kEthersSignature));
    ASSERT_TRUE(signer);
    EXPECT_NE(*signer, *domain::evm::parse_address(kDevAddress));
}

}  // namespace
}  // namespace duepay::infra::crypto
