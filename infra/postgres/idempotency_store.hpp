// Idempotency keys for POST /v1/invoices, Stripe semantics scoped to the project (docs/product.md,
// docs/design.md): begin() claims a key (or reports a replay, an in-flight duplicate, or a key
// reused with another request), complete() stores the 201 response, abandon() frees the key after a
// failure so a retry can proceed. Rows live in idempotency_keys (migration 0030), at least 24 h.
//
// Bound keys (migration 0060, ADR 0091): before appending, prepare() binds the key to the charge
// (invoice id, exact event bytes, 201 body). From then on the row is never deleted by a failure:
// unlock() releases it after an unknown append outcome, and a later begin() with the same request
// gets `resume` with the prepared charge, so the retry re-appends the SAME event (or finds the
// charge) instead of creating a second one.
//
// A crashed holder (migration 0219, ADR 0219): every row claimed or resumed names its process's
// IdempotencyHolder, a session advisory lock that Postgres drops when the process dies. A row whose
// holder's lock is gone is taken over (unbound) or resumed (bound) at once; lock_timeout stays as
// the bound for a holder alive but stuck, and for rows claimed without a holder session.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "domain/ports/api.hpp"
#include "domain/result.hpp"
#include "infra/postgres/pool.hpp"
#include "infra/random/key_material.hpp"

namespace duepay::infra::postgres {

// The vocabulary is the port's (domain/ports/api.hpp, ADR 0182).
using ports::BeginOutcome;
using ports::BeginResult;
using ports::PreparedCreate;
using ports::StoredResponse;

struct IdempotencySettings {
    std::chrono::seconds retention{std::chrono::hours(24)};  // a completed key replays this long
    std::chrono::seconds lock_timeout{
        60};  // an in-flight row older than this was abandoned (crash)
};

// The liveness of one process's claims (ADR 0219): a connection of its own (not the pool's) that
// holds pg_advisory_lock(0x6469, id), id drawn from the sequence idempotency_holder_ids. The lock
// lives exactly as long as that session: when the process dies its socket closes, the backend
// exits and the lock is gone, which begin() of any process sees in pg_locks.
class IdempotencyHolder {
  public:
    explicit IdempotencyHolder(std::string database_url);  // connects in maintain(), not here
    ~IdempotencyHolder();
    IdempotencyHolder(const IdempotencyHolder&) = delete;
    IdempotencyHolder& operator=(const IdempotencyHolder&) = delete;

    // The id claims are stamped with; 0 while no session holds the lock (claims then carry no
    // holder and fall back to lock_timeout). Any thread.
    std::int32_t id() const noexcept { return id_.load(std::memory_order_acquire); }

    // Checks the session (`select 1`) and, when it is gone or was never opened, opens a new one
    // with a new id. One thread only (the api role's loop, about once a second); never throws:
    // a failure is logged when the state changes and retried at the next call.
    void maintain() noexcept;

  private:
    std::string url_;
    std::unique_ptr<pqxx::connection> conn_;
    std::atomic<std::int32_t> id_{0};
    bool warned_ = false;
};

// The Postgres adapter of the ports::IdempotencyKeys port.
class IdempotencyStore final : public ports::IdempotencyKeys {
  public:
    // `holder` (may be null: claims then carry no holder) must outlive the store.
    explicit IdempotencyStore(ConnectionPool& pool, IdempotencySettings settings = {},
                              const IdempotencyHolder* holder = nullptr)
        : pool_(pool), settings_(settings), holder_(holder) {}

    // Throws DatabaseUnavailable. An in-flight row is ours to take over (unbound) or resume (bound)
    // once its lock_timeout passed or its holder's session is gone.
    BeginResult begin(const domain::ProjectId& project, const std::string& key,
                      const random::Digest32& fingerprint) override;

    // Stores a success (2xx; anything else throws InfraError, not retryable: failures are never
    // replayed). False if
    // the row was no longer ours (taken over after lock_timeout, or purged).
    bool complete(const domain::ProjectId& project, const std::string& key,
                  const random::Digest32& fingerprint, const StoredResponse& response) override;

    // Binds our in-flight row to the charge about to be appended. False if the row was no longer
    // ours (taken over, purged) or already bound.
    bool prepare(const domain::ProjectId& project, const std::string& key,
                 const random::Digest32& fingerprint, const PreparedCreate& prepared) override;

    // Releases our in-flight row without forgetting what it prepared: the next begin() with the
    // same request resumes it at once (no lock_timeout wait).
    void unlock(const domain::ProjectId& project, const std::string& key,
                const random::Digest32& fingerprint) override;

    // Deletes our in-flight row so a retry with the same key can proceed. Only for failures where
    // no event of this key can be in the log (before the append, or not_persisted of a first
    // attempt).
    void abandon(const domain::ProjectId& project, const std::string& key,
                 const random::Digest32& fingerprint) override;

    // Deletes expired rows, at most `limit`; returns how many.
    std::int64_t purge_expired(int limit = 10000);

  private:
    ConnectionPool& pool_;
    IdempotencySettings settings_;
    const IdempotencyHolder* holder_;
};

namespace detail {
std::string encode_headers(const std::vector<std::pair<std::string, std::string>>& headers);
std::vector<std::pair<std::string, std::string>> decode_headers(std::string_view text);
}  // namespace detail

}  // namespace duepay::infra::postgres
