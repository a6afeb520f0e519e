// The signing port. The domain computes every digest (EIP-712, EIP-191) purely; producing a
// signature needs a secret key and a curve library, so it sits behind this interface and the
// adapter lives in infra/crypto (docs/adr/0010-signing-behind-a-port.md).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "domain/result.hpp"
#include "domain/types.hpp"

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

class Signer {
  public:
    virtual ~Signer();
    virtual Signature sign_digest(const Bytes32& digest) const = 0;
    virtual Address address() const = 0;
};

}  // namespace duepay::domain::evm
