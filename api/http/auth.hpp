// API key authentication: the key comes in `x-api-key` or `Authorization: Bearer`; its SHA-256 is
// looked up (only hashes are stored) and compared in constant time. Found keys are cached for a
// few seconds so hot polling loops do not hit Postgres on every request (a revocation takes effect
// within the TTL; docs/adr/0042-api-read-path.md).
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "api/http/api_types.hpp"
#include "api/http/ports.hpp"

namespace duepay::api {

// The presented key, from x-api-key or "Authorization: Bearer <key>".
std::optional<std::string> presented_key(const ApiRequest& request);

class Authenticator {
public:
    explicit Authenticator(KeyDirectory& keys, std::chrono::milliseconds ttl = std::chrono::seconds(5))
        : keys_(keys), ttl_(ttl) {}

    // The owner of the presented key, or nullopt (401). Throws DatabaseUnavailable.
    std::optional<KeyOwner> authenticate(const ApiRequest& request);

private:
    struct Entry {
        std::optional<KeyOwner> owner;
        std::chrono::steady_clock::time_point expires;
    };
    KeyDirectory& keys_;
    std::chrono::milliseconds ttl_;
    std::mutex mutex_;
    std::unordered_map<std::string, Entry> cache_;  // by hex of the key hash
};

}  // namespace duepay::api
