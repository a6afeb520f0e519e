// Hashes for secrets (OpenSSL): SHA-256 of API keys (only the hash is stored), HMAC-SHA256 for
// deterministic key derivation, and a constant-time comparison. OpenSSL failing to hash throws
// RandomError (random.hpp, not retryable).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace duepay::infra::random {

using Digest32 = std::array<std::uint8_t, 32>;

Digest32 sha256(std::string_view data);
Digest32 hmac_sha256(std::span<const std::uint8_t> key, std::string_view message);
// Equal length and content, in time independent of the content.
bool constant_time_equal(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b);

// A test key derived from the server secret (docs/adr/0080): "dp_test_" + the first 48 hex digits
// of HMAC-SHA256(server_secret, key_id). The same key id always gives the same key, so a test key
// can be shown again without its secret ever being stored.
std::string derive_test_key(std::span<const std::uint8_t> server_secret, std::string_view key_id);

}  // namespace duepay::infra::random
