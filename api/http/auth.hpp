// API key authentication: the key comes in `x-api-key` or `Authorization: Bearer`; its SHA-256 is
// looked up (only hashes are stored) and compared in constant time. Lookups are cached for 1 s so
// hot polling loops do not hit Postgres on every request: a revoked key (duepay admin key revoke)
// stops working on every API process within 1 s (docs/accounts.md, docs/adr/0080).
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

// The bound on how long a revoked key keeps working (and a new key stays unknown).
inline constexpr std::chrono::milliseconds kKeyCacheTtl{1000};

class Authenticator {
public:
    explicit Authenticator(KeyDirectory& keys, std::chrono::milliseconds ttl = kKeyCacheTtl)
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
