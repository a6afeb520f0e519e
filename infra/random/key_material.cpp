#include "infra/random/key_material.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <string_view>

#include "infra/random/random.hpp"

namespace duepay::infra::random {
namespace {

// SHA-256 fetched from the provider once: EVP_sha256() makes OpenSSL 3 look the algorithm up in
// its provider store (a lock and a search) on every digest, which was two thirds of the cost of
// hashing an API key on each request (bench/RESULTS.md). Kept for the process.
const EVP_MD* sha256_md() {
    static EVP_MD* const md = [] {
        EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
        if (fetched == nullptr) throw RandomError("EVP_MD_fetch(SHA256) failed");
        return fetched;
    }();
    return md;
}

}  // namespace

Digest32 sha256(std::string_view data) {
    Digest32 out{};
    unsigned int len = 0;
    if (EVP_Digest(data.data(), data.size(), out.data(), &len, sha256_md(), nullptr) != 1 ||
        len != 32) {
        throw RandomError("EVP_Digest(sha256) failed");
    }
    return out;
}

Digest32 hmac_sha256(std::span<const std::uint8_t> key, std::string_view message) {
    Digest32 out{};
    unsigned int len = 0;
    if (HMAC(sha256_md(), key.data(), static_cast<int>(key.size()),
             reinterpret_cast<const unsigned char*>(message.data()), message.size(), out.data(),
             &len) == nullptr ||
        len != 32) {
        throw RandomError("HMAC(sha256) failed");
    }
    return out;
}

bool constant_time_equal(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
    if (a.size() != b.size()) return false;
    return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string derive_test_key(std::span<const std::uint8_t> server_secret, std::string_view key_id) {
    static constexpr std::string_view kHex = "0123456789abcdef";
    const auto mac = hmac_sha256(server_secret, key_id);
    std::string out = "dp_test_";
    for (std::size_t i = 0; i < 24; ++i) {
        out += kHex[mac[i] >> 4];
        out += kHex[mac[i] & 15];
    }
    return out;
}

}  // namespace duepay::infra::random
