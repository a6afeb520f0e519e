// Cryptographically secure random bytes (OpenSSL RAND_bytes). Throws RandomError if the CSPRNG
// fails, which is not retryable: the process should stop rather than mint guessable ids.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>

namespace duepay::infra::random {

class RandomError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

void fill_random(std::span<std::uint8_t> out);

template <std::size_t N>
std::array<std::uint8_t, N> random_bytes() {
    std::array<std::uint8_t, N> out{};
    fill_random(out);
    return out;
}

}  // namespace duepay::infra::random
