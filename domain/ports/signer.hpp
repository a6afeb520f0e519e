// The signing port. The domain computes every digest (EIP-712, EIP-191) purely; producing a
// signature needs a secret key and a curve library, so it sits behind this interface and the
// adapter lives in infra/crypto (docs/adr/0010-signing-behind-a-port.md). The signature's type and
// its parsing are the domain's (domain/evm/signature.hpp).
#pragma once

#include "domain/evm/signature.hpp"
#include "domain/types.hpp"

namespace duepay::ports {

class Signer {
  public:
    virtual ~Signer() = default;
    virtual domain::evm::Signature sign_digest(const domain::Bytes32& digest) const = 0;
    virtual domain::Address address() const = 0;
};

}  // namespace duepay::ports
