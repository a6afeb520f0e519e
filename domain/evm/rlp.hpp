// RLP (Recursive Length Prefix), the Ethereum serialisation of transactions. Only encoding: the
// service builds and signs dev transactions (admin simulate-payment, settle --send) and never
// decodes RLP. Items are byte strings or lists of items.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "domain/types.hpp"

namespace duepay::domain::evm {

// A byte string item.
Bytes rlp_bytes(std::span<const std::uint8_t> bytes);
// An unsigned integer: big-endian without leading zeros (zero is the empty string).
Bytes rlp_uint(const uint256& value);
// A list of already encoded items (concatenated in order).
Bytes rlp_list(std::span<const Bytes> encoded_items);

}  // namespace duepay::domain::evm
