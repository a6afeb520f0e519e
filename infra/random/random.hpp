// Cryptographically secure random bytes (OpenSSL RAND_bytes). Throws RandomError if the CSPRNG
// fails, which is not retryable: the process should stop rather than mint guessable ids.
// RandomError is also what key_material.hpp throws when OpenSSL cannot hash.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "infra/error.hpp"

namespace duepay::infra::random {

class RandomError : public InfraError {
  public:
    // NOLINTNEXTLINE(bugprone-throw-keyword-missing): base initialiser, not a dropped exception
    explicit RandomError(const std::string& what) : InfraError(what, false) {}
};

void fill_random(std::span<std::uint8_t> out);

template <std::size_t N>
std::array<std::uint8_t, N> random_bytes() {
    std::array<std::uint8_t, N> out{};
    fill_random(out);
    return out;
}

}  // namespace duepay::infra::random
