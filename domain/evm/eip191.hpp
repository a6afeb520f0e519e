// EIP-191 version 0x45 ("personal_sign"): the hash wallets sign for a plain text message, used to
// prove control of a payout wallet (`wallet challenge` / `wallet verify`).
#pragma once

#include <string_view>

#include "domain/types.hpp"

namespace duepay::domain::evm {

// keccak256("\x19Ethereum Signed Message:\n" + decimal byte length + message). The message is
// taken as raw bytes (UTF-8 text in practice), exactly as ethers' hashMessage(string) does.
Bytes32 personal_message_hash(std::string_view message);

}  // namespace duepay::domain::evm
