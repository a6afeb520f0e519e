#include "domain/accounts/payout_wallet.hpp"

#include "domain/evm/address.hpp"

namespace duepay::domain::accounts {

std::string wallet_challenge_message(const std::string& project_id, const std::string& address,
                                     const std::string& nonce, const std::string& expires_at) {
    return "duepay payout wallet verification\n\n"
           "Sign this message to prove that you control this wallet and want it to receive the "
           "payments "
           "of the project below. Signing costs nothing and authorises no transaction.\n\n"
           "Project: " +
           project_id + "\nAddress: " + address + "\nNonce: " + nonce + "\nExpires: " + expires_at;
}

std::optional<Error> check_wallet_proof(const WalletProof& p) {
    if (p.challenge_used) {
        return make_error("challenge_used", "this challenge was already used; request a new one");
    }
    if (p.challenge_expired) {
        return make_error("challenge_expired", "the challenge expired at " +
                                                   p.challenge_expires_at + "; request a new one");
    }
    if (!p.signer) return p.signer.error();
    if (*p.signer != p.address) {
        return make_error("signer_mismatch", "the message was signed by " +
                                                 evm::to_checksum(*p.signer) + ", not " +
                                                 evm::to_checksum(p.address));
    }
    if (!p.require_current_wallet || !p.current_wallet || *p.current_wallet == p.address) {
        return std::nullopt;
    }
    const auto current = evm::to_checksum(*p.current_wallet);
    if (!p.current_signer) {
        return make_error("current_wallet_signature_required",
                          "the payout wallet is " + current +
                              ": changing it also needs currentWalletSignature, that wallet's "
                              "signature of the same challenge message");
    }
    if (!*p.current_signer) return p.current_signer->error();
    if (**p.current_signer != *p.current_wallet) {
        return make_error("current_wallet_signer_mismatch",
                          "currentWalletSignature was made by " +
                              evm::to_checksum(**p.current_signer) + ", not the payout wallet " +
                              current);
    }
    return std::nullopt;
}

}  // namespace duepay::domain::accounts
