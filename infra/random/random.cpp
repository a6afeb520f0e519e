#include "infra/random/random.hpp"

#include <openssl/rand.h>

#include <climits>

namespace duepay::infra::random {

void fill_random(std::span<std::uint8_t> out) {
    if (out.size() > static_cast<std::size_t>(INT_MAX) ||
        RAND_bytes(out.data(), static_cast<int>(out.size())) != 1) {
        throw RandomError("RAND_bytes failed: the CSPRNG is unavailable");
    }
}

}  // namespace duepay::infra::random
