// EVM addresses as text: EIP-55 mixed-case checksums.
#pragma once

#include <string>
#include <string_view>

#include "domain/result.hpp"
#include "domain/types.hpp"

namespace duepay::domain::evm {

// "0x" + 40 hex digits, letters upper-cased where the EIP-55 checksum says so.
std::string to_checksum(const Address& address);

// Accepts "0x" (or no prefix) + 40 hex digits that are all lower case, all upper case, or mixed
// case with a correct EIP-55 checksum: the rule ethers' getAddress applies.
// Errors: invalid_address (length, prefix or characters), invalid_address_checksum (mixed case
// that is not the EIP-55 checksum, usually a typo).
Result<Address> parse_address(std::string_view text);

}  // namespace duepay::domain::evm
