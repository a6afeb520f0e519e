#include "infra/random/key_material.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <stdexcept>

namespace duepay::infra::random {

Digest32 sha256(std::string_view data) {
    Digest32 out{};
    unsigned int len = 0;
    if (EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_sha256(), nullptr) != 1 ||
        len != 32) {
        throw std::runtime_error("EVP_Digest(sha256) failed");
    }
    return out;
}

Digest32 hmac_sha256(std::span<const std::uint8_t> key, std::string_view message) {
    Digest32 out{};
    unsigned int len = 0;
    if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
             reinterpret_cast<const unsigned char*>(message.data()), message.size(), out.data(),
             &len) == nullptr ||
        len != 32) {
        throw std::runtime_error("HMAC(sha256) failed");
    }
    return out;
}

bool constant_time_equal(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
    if (a.size() != b.size()) return false;
    return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace duepay::infra::random
