// Idempotency keys for POST /v1/invoices, Stripe semantics scoped to the project (spec 4.1 rule 4,
// DESIGN 4): begin() claims a key (or reports a replay, an in-flight duplicate or a reused key
// with another request), complete() stores the 201 response, abandon() frees the key after a
// failure so a retry can proceed. Rows live in idempotency_keys (migration 0030), at least 24 h.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "domain/result.hpp"
#include "infra/postgres/pool.hpp"
#include "infra/random/key_material.hpp"

namespace duepay::infra::postgres {

// 1 to 255 characters, each visible ASCII (0x21..0x7e). Code "invalid_idempotency_key" (400).
domain::Result<std::string> parse_idempotency_key(std::string_view header_value);

// SHA-256 over method, path and the raw body: the same key with other bytes is another request.
random::Digest32 request_fingerprint(std::string_view method, std::string_view path, std::string_view body);

struct StoredResponse {
    int status = 201;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    bool operator==(const StoredResponse&) const = default;
};

enum class BeginOutcome {
    created,    // the row is ours (in flight): create the charge, then complete() or abandon()
    replay,     // a completed request with this key and body: answer `response`
    in_flight,  // another request holds the key right now: 409 idempotency_key_in_use
    mismatch,   // the key was used with another request: 422 idempotency_key_reused
};

struct BeginResult {
    BeginOutcome outcome = BeginOutcome::created;
    std::optional<StoredResponse> response;  // set for replay
};

struct IdempotencySettings {
    std::chrono::seconds retention{std::chrono::hours(24)};  // a completed key replays this long
    std::chrono::seconds lock_timeout{60};  // an in-flight row older than this was abandoned (crash)
};

class IdempotencyStore {
public:
    explicit IdempotencyStore(ConnectionPool& pool, IdempotencySettings settings = {})
        : pool_(pool), settings_(settings) {}

    // Throws DatabaseUnavailable.
    BeginResult begin(const std::string& project_id, const std::string& key, const random::Digest32& fingerprint);

    // Stores a success (2xx; anything else is a logic_error: failures are never replayed). False if
    // the row was no longer ours (taken over after lock_timeout, or purged).
    bool complete(const std::string& project_id, const std::string& key, const random::Digest32& fingerprint,
                  const StoredResponse& response);

    // Deletes our in-flight row so a retry with the same key can proceed.
    void abandon(const std::string& project_id, const std::string& key, const random::Digest32& fingerprint);

    // Deletes expired rows; returns how many.
    std::int64_t purge_expired();

private:
    ConnectionPool& pool_;
    IdempotencySettings settings_;
};

namespace detail {
std::string encode_headers(const std::vector<std::pair<std::string, std::string>>& headers);
std::vector<std::pair<std::string, std::string>> decode_headers(std::string_view text);
}  // namespace detail

}  // namespace duepay::infra::postgres
