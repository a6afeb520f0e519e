// An ECDSA signature as the EVM takes it, and the parsing of a wallet's signature text. Producing
// one needs a secret key and a curve library: that is the Signer port (domain/ports/signer.hpp,
// docs/adr/0010-signing-behind-a-port.md), whose adapter lives in infra/crypto.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "domain/result.hpp"

namespace duepay::domain::evm {

// 65 bytes r || s || v with v in {27, 28} and s in the lower half of the curve order (low-s), the
// form Solidity's ecrecover and OpenZeppelin's ECDSA.recover accept.
struct Signature {
    std::array<std::uint8_t, 65> bytes{};
    bool operator==(const Signature&) const = default;
};

// Parses a wallet's signature text: "0x" + 130 hex digits (r || s || v). v 0 or 1 (some hardware
// wallets) is normalised to 27 or 28, as ethers does; any other v is rejected. Range checks of r
// and s (and low-s) happen on recovery (infra/crypto recover_signer). Error: invalid_signature.
Result<Signature> parse_signature(std::string_view text);

}  // namespace duepay::domain::evm
