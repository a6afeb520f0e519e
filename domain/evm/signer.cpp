#include "domain/evm/signer.hpp"

namespace duepay::domain::evm {

Signer::~Signer() = default;

}  // namespace duepay::domain::evm
