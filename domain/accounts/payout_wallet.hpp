// The payout wallet proof (EIP-191 personal_sign), the pure part shared by `duepay admin wallet`
// and POST /v1/payout-wallet/challenge|verify (docs/accounts.md, docs/adr/0171): the text a wallet
// signs, and which signatures a change of the payout wallet needs. Recovering a signer needs the
// curve library (infra/crypto); the caller passes what it recovered.
#pragma once

#include <optional>
#include <string>

#include "domain/result.hpp"
#include "domain/types.hpp"

namespace duepay::domain::accounts {

// The challenge text: names the project, the EIP-55 address, the nonce and the expiry, so a
// signature proves exactly "this wallet may receive this project's payments", once, until then.
std::string wallet_challenge_message(const std::string& project_id, const std::string& address,
                                     const std::string& nonce, const std::string& expires_at);

// What is known when a wallet proof is checked.
struct WalletProof {
    bool challenge_used = false;
    bool challenge_expired = false;
    std::string challenge_expires_at;               // for the message of challenge_expired
    Address address;                                // the wallet to set (the challenge's address)
    Result<Address> signer;                         // recovered from the new wallet's signature
    std::optional<Address> current_wallet;          // the project's verified payout wallet, if any
    std::optional<Result<Address>> current_signer;  // from the current wallet's signature, if given
    // True on the REST API: changing a verified wallet to another one also needs the current
    // wallet's signature over the same challenge, so an API key alone can never redirect funds.
    // False for `duepay admin` (an operator's recovery path when a merchant lost the wallet).
    bool require_current_wallet = true;
};

// nullopt when the payout wallet may be set to `proof.address`; otherwise the rejection, checked in
// this order: challenge_used, challenge_expired, invalid_signature (the new wallet's signature does
// not recover), signer_mismatch, current_wallet_signature_required, invalid_signature (the current
// wallet's), current_wallet_signer_mismatch.
std::optional<Error> check_wallet_proof(const WalletProof& proof);

}  // namespace duepay::domain::accounts
