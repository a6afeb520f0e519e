// A Sign-In with Ethereum message (domain/accounts/siwe) signed with personal_sign recovers,
// through the secp256k1 adapter, to the message's own address: the domain gives the hash, infra
// recovers (docs/adr/0210-siwe-messages.md). Kept out of tests/unit/domain: this binary links
// libsecp256k1.
#include <gtest/gtest.h>

#include "domain/accounts/siwe.hpp"
#include "domain/evm/address.hpp"
#include "domain/hex.hpp"
#include "infra/crypto/secp256k1_signer.hpp"

namespace duepay::infra::crypto {
namespace {

namespace siwe = domain::accounts::siwe;

// anvil's first dev account (a public test key, never funded outside a local chain).
constexpr std::string_view kDevKey =
    "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

const std::string kText =
    "https://dash.duepay.example wants you to sign in with your Ethereum account:\n"
    "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266\n"
    "\n"
    "Sign in to the duepay dashboard.\n"
    "\n"
    "URI: https://dash.duepay.example/login\n"
    "Version: 1\n"
    "Chain ID: 137\n"
    "Nonce: k3Jd8sQ2pL9x\n"
    "Issued At: 2026-11-27T11:00:00.000Z\n"
    "Expiration Time: 2026-11-27T11:10:00.000Z\n"
    "Not Before: 2026-11-27T11:00:00.000Z\n"
    "Request ID: req-42\n"
    "Resources:\n"
    "- https://dash.duepay.example/terms";

// ethers 6.17.0: hashMessage(kText) and new Wallet(kDevKey).signMessage(kText).
constexpr std::string_view kEthersHash =
    "0x611ba5c071056e0ba8ec775ed3d4f078e766a9472effc60f27f485dee27bb678";
constexpr std::string_view kEthersSignature =
    "0x5dfaae54ad33e16151898ed4497c5713dd58d1772d095a24a509d5041c679049"
    "6fdc8f2a5ba85e767181047b6b8b2b3e4f0b20c3f17c19ebc58ce9b866e821a5"
    "1c";

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
    EXPECT_NE(*signer, *domain::evm::parse_address("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"));
}

}  // namespace
}  // namespace duepay::infra::crypto
