// API key authentication, one Authenticator (and so one key cache) per process, used by the HTTP
// pipeline (api/http/router.hpp) for every route that declares an API key. The key comes in
// `x-api-key` or `Authorization: Bearer`; its SHA-256 is looked up (only hashes are stored) and
// compared in constant time. Lookups are cached for 1 s so hot polling loops do not hit Postgres on
// every request: a revoked key (duepay admin key revoke) stops working on every API process within
// 1 s, and a key created after a failed attempt with it works within 1 s (docs/accounts.md,
// docs/adr/0080). A rolled key (POST /v1/api-keys/roll) is cached no longer than its remaining
// life, so it stops at its expiresAt on every process (docs/adr/0170). Unknown keys are cached
// apart from known ones, so a flood of made-up keys cannot evict the keys of real clients, and a
// key that cannot be one of ours (plausible_key) is refused without a lookup (docs/adr/0097). The
// process's own account writes (PATCH /v1/project, a key roll, a payout wallet) call
// forget_project, so the next request on this process sees them at once; other processes see them
// within the TTL.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "api/http/api_types.hpp"
#include "api/http/port_names.hpp"

namespace duepay::api {

// The presented key, from x-api-key or "Authorization: Bearer <key>" (the scheme in any case).
std::optional<std::string> presented_key(const ApiRequest& request);

// The bound on how long a revoked key keeps working (and a new key stays unknown).
inline constexpr std::chrono::milliseconds kKeyCacheTtl{1000};
// Entries per cache (known keys, unknown keys).
inline constexpr std::size_t kKeyCacheEntries = 10000;

// Whether `key` has the shape of a key we issue: `dp_test_` or `dp_live_`, then 1..64 ASCII
// letters or digits (issued keys are 48 or 64 hex digits).
bool plausible_key(std::string_view key);

class Authenticator {
  public:
    explicit Authenticator(KeyDirectory& keys, std::chrono::milliseconds ttl = kKeyCacheTtl)
        : keys_(keys), ttl_(ttl) {}

    // The owner of the presented key, or nullopt (401). Throws ports::StoreUnavailable.
    std::optional<KeyOwner> authenticate(const ApiRequest& request);

    // Drops every cached key of `project`: its next request reads the key's owner again.
    void forget_project(const ProjectId& project);

  private:
    using Clock = std::chrono::steady_clock;
    struct Known {
        KeyOwner owner;
        Clock::time_point expires;
    };
    // Makes room for one entry: drops the expired ones, and everything if none had expired.
    template <class Map>
    static void make_room(Map& map, Clock::time_point now);

    KeyDirectory& keys_;
    std::chrono::milliseconds ttl_;
    std::mutex mutex_;
    std::unordered_map<std::string, Known> known_;                // by raw key hash
    std::unordered_map<std::string, Clock::time_point> unknown_;  // by raw key hash: expiry
};

}  // namespace duepay::api
