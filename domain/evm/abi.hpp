// Solidity ABI encoding of static types (abi.encode): each value is one 32-byte big-endian word.
// Enough for EIP-712 struct hashing and the CREATE2 salt; dynamic types are out of scope (EIP-712
// hashes strings and bytes with keccak256 before they become a word).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "domain/types.hpp"

namespace duepay::domain::evm {

using Word = Bytes32;

Word abi_word(const uint256& value);     // uint256 (and any uintN up to 256 bits)
Word abi_word_u64(std::uint64_t value);  // uint16 / uint32 / uint64 as a left-padded word
Word abi_word(const Address& address);   // address: 12 zero bytes, then the 20 bytes
Word abi_word(const Bytes32& value);     // bytes32: as is
Word abi_word_bool(bool value);          // bool: 0 or 1

// Writes `word` into `out` at word index `index` (out.size() must be at least 32 * (index + 1)).
void put_word(std::span<std::uint8_t> out, std::size_t index, const Word& word);

// abi.encode of N static words, into a fixed-size buffer (no heap allocation).
template <std::size_t N>
std::array<std::uint8_t, 32 * N> abi_encode(const std::array<Word, N>& words) {
    std::array<std::uint8_t, 32 * N> out{};
    for (std::size_t i = 0; i < N; ++i) put_word(out, i, words[i]);
    return out;
}

// Reads a word back as uint256 (used by tests and by callers that decode eth_call results).
uint256 abi_uint256(const Word& word);

}  // namespace duepay::domain::evm
