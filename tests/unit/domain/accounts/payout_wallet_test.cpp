// domain/accounts/payout_wallet: which signatures a payout wallet change needs, given / when / then
// style (the recovered signers are given; recovery itself is tested in infra/crypto).
#include "domain/accounts/payout_wallet.hpp"

#include <gtest/gtest.h>

namespace duepay::domain::accounts {
namespace {

Address addr(std::uint8_t b) {
    Address a;
    a.bytes.fill(b);
    return a;
}

const Address kNew = addr(0x11);
const Address kCurrent = addr(0x22);
const Address kStranger = addr(0x33);

// A proof of kNew, signed by kNew, for a project without a wallet.
WalletProof proof() {
    return WalletProof{.challenge_used = false,
                       .challenge_expired = false,
                       .challenge_expires_at = "2026-11-23T10:00:00Z",
                       .address = kNew,
                       .signer = kNew,
                       .current_wallet = std::nullopt,
                       .current_signer = std::nullopt,
                       .require_current_wallet = true};
}

std::string code(const WalletProof& p) {
    auto e = check_wallet_proof(p);
    return e ? e->code : "accepted";
}

TEST(WalletProof, FirstWalletNeedsOnlyItsOwnSignature) { EXPECT_EQ(code(proof()), "accepted"); }

TEST(WalletProof, ChallengeStateComesFirst) {
    auto p = proof();
    p.challenge_used = true;
    EXPECT_EQ(code(p), "challenge_used");
    p = proof();
    p.challenge_expired = true;
    EXPECT_EQ(code(p), "challenge_expired");
    EXPECT_NE(check_wallet_proof(p)->message.find("2026-11-23T10:00:00Z"), std::string::npos);
}

TEST(WalletProof, TheNewWalletMustSign) {
    auto p = proof();
    p.signer = kStranger;
    EXPECT_EQ(code(p), "signer_mismatch");
    p.signer = make_error("invalid_signature", "high s");
    EXPECT_EQ(code(p), "invalid_signature");
}

TEST(WalletProof, ReplacingAVerifiedWalletNeedsTheCurrentOne) {
    auto p = proof();
    p.current_wallet = kCurrent;
    EXPECT_EQ(code(p), "current_wallet_signature_required");
    p.current_signer = Result<Address>(kStranger);
    EXPECT_EQ(code(p), "current_wallet_signer_mismatch");
    p.current_signer = Result<Address>(make_error("invalid_signature", "bad v"));
    EXPECT_EQ(code(p), "invalid_signature");
    p.current_signer = Result<Address>(kCurrent);
    EXPECT_EQ(code(p), "accepted");
}

TEST(WalletProof, ReVerifyingTheSameWalletNeedsNoSecondSignature) {
    auto p = proof();
    p.current_wallet = kNew;
    EXPECT_EQ(code(p), "accepted");
}

TEST(WalletProof, AnOperatorMayReplaceWithoutTheCurrentWallet) {
    auto p = proof();
    p.current_wallet = kCurrent;
    p.require_current_wallet = false;
    EXPECT_EQ(code(p), "accepted");
    p.signer = kStranger;  // but never without the new wallet's own signature
    EXPECT_EQ(code(p), "signer_mismatch");
}

TEST(WalletChallengeMessage, NamesProjectAddressNonceAndExpiry) {
    const auto m = wallet_challenge_message("prj_1", "0xAbC", "n0nce", "2026-11-23T10:00:00Z");
    EXPECT_EQ(m.rfind("duepay payout wallet verification\n\n", 0), 0u);
    EXPECT_NE(m.find("\n\nProject: prj_1\nAddress: 0xAbC\nNonce: n0nce\nExpires: "
                     "2026-11-23T10:00:00Z"),
              std::string::npos)
        << m;
}

}  // namespace
}  // namespace duepay::domain::accounts
