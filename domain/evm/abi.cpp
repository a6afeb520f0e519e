#include "domain/evm/abi.hpp"

#include <algorithm>
#include <cassert>

namespace duepay::domain::evm {

Word abi_word(const uint256& value) {
    // Read the 64-bit limbs of the fixed-width cpp_int directly (least significant first); this is
    // the hot path of every EIP-712 hash, and export_bits would allocate.
    using Limb = boost::multiprecision::limb_type;
    static_assert(sizeof(Limb) == 8 || sizeof(Limb) == 4);
    Word out{};
    const auto& backend = value.backend();
    const Limb* limbs = backend.limbs();
    const std::size_t count = backend.size();
    for (std::size_t i = 0; i < count; ++i) {
        Limb limb = limbs[i];
        for (std::size_t b = 0; b < sizeof(Limb); ++b) {
            const std::size_t pos = i * sizeof(Limb) + b;  // byte index from the least significant
            if (pos >= 32) break;
            out[31 - pos] = static_cast<std::uint8_t>(limb & 0xff);
            limb >>= 8;
        }
    }
    return out;
}

Word abi_word_u64(std::uint64_t value) {
    Word out{};
    for (std::size_t i = 0; i < 8; ++i) out[31 - i] = static_cast<std::uint8_t>(value >> (8 * i));
    return out;
}

Word abi_word(const Address& address) {
    Word out{};
    std::copy(address.bytes.begin(), address.bytes.end(), out.begin() + 12);
    return out;
}

Word abi_word(const Bytes32& value) { return value; }

Word abi_word_bool(bool value) {
    Word out{};
    out[31] = value ? 1 : 0;
    return out;
}

void put_word(std::span<std::uint8_t> out, std::size_t index, const Word& word) {
    assert(out.size() >= 32 * (index + 1));
    std::copy(word.begin(), word.end(), out.begin() + static_cast<std::ptrdiff_t>(32 * index));
}

uint256 abi_uint256(const Word& word) {
    uint256 v = 0;
    for (std::uint8_t byte : word) v = (v << 8) | byte;
    return v;
}

}  // namespace duepay::domain::evm
