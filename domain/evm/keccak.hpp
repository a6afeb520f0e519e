// Keccak-256 as Ethereum uses it: the original Keccak submission's padding (0x01 ... 0x80), which
// differs from FIPS 202 SHA3-256 (0x06 ... 0x80). Rate 136 bytes, capacity 512 bits, 32-byte
// output. Written by hand for speed: 25 lanes held in locals, two unrolled rounds per loop step,
// whole 136-byte blocks absorbed straight from the caller's buffer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "domain/types.hpp"

namespace duepay::domain::evm {

// The Keccak-f[1600] permutation on a 25-lane state (lane i = x + 5y, little-endian lanes). On
// x86-64 CPUs with BMI1/BMI2 a build of the same code for those instructions is picked at run time.
void keccak_f1600(std::array<std::uint64_t, 25>& state);

namespace detail {
// The portable build of the permutation, never dispatched; lets tests compare the two builds.
void keccak_f1600_portable(std::array<std::uint64_t, 25>& state);
}  // namespace detail

// Incremental Keccak-256: update() any number of times, then finish() once.
class Keccak256 {
  public:
    static constexpr std::size_t kRate = 136;

    Keccak256& update(std::span<const std::uint8_t> data);
    Keccak256& update(std::string_view text);
    // Pads, squeezes and returns the digest. The hasher must not be updated afterwards; call
    // reset() to reuse it.
    Bytes32 finish();
    void reset();

  private:
    std::array<std::uint64_t, 25> state_{};
    std::array<std::uint8_t, kRate> buffer_{};
    std::size_t buffered_ = 0;
};

Bytes32 keccak256(std::span<const std::uint8_t> data);
Bytes32 keccak256(std::string_view text);

}  // namespace duepay::domain::evm
