#include "domain/evm/eip191.hpp"

#include <string>

#include "domain/evm/keccak.hpp"

namespace duepay::domain::evm {

Bytes32 personal_message_hash(std::string_view message) {
    Keccak256 hasher;
    hasher.update(
        std::string_view("\x19"
                         "Ethereum Signed Message:\n"));
    hasher.update(std::string_view(std::to_string(message.size())));
    hasher.update(message);
    return hasher.finish();
}

}  // namespace duepay::domain::evm
