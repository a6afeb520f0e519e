// What the routes need from the world, as small interfaces (STYLE rule 2). Postgres adapters are in
// pg_ports.hpp; unit tests use in-memory doubles.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "infra/postgres/account_store.hpp"
#include "infra/postgres/charge_row.hpp"
#include "infra/postgres/charge_store.hpp"
#include "infra/postgres/idempotency_store.hpp"
#include "infra/postgres/rate_limiter.hpp"

namespace duepay::api {

using infra::postgres::ChargeRow;
using infra::postgres::ChargeStatus;
using infra::postgres::KeyOwner;

class KeyDirectory {
  public:
    virtual ~KeyDirectory() = default;
    // The active key with this SHA-256 hash; throws infra::postgres::DatabaseUnavailable.
    virtual std::optional<KeyOwner> find(const infra::random::Digest32& key_hash) = 0;
};

class ChargeReader {
  public:
    virtual ~ChargeReader() = default;
    virtual std::optional<ChargeRow> find(const std::string& invoice_id) = 0;
    virtual std::optional<ChargeStatus> find_status(const std::string& invoice_id) = 0;
};

// A page of a project's charges (GET /v1/charges); Postgres: PgChargeReader (list_charges).
// Throws infra::postgres::DatabaseUnavailable.
class ChargeLister {
  public:
    virtual ~ChargeLister() = default;
    virtual std::vector<infra::postgres::ListedCharge> list(
        const infra::postgres::ChargeListQuery& query) = 0;
};

// The events of one charge as encoded on the topic, in log order (the projector's journal), for
// commands that fold the charge before deciding (refunds). Throws DatabaseUnavailable.
class ChargeHistory {
  public:
    virtual ~ChargeHistory() = default;
    virtual std::vector<std::string> events(const std::string& invoice_id) = 0;
};

// Waits until the projector has written a charge row. `done(true)` once the row exists,
// `done(false)` when `timeout` passed first; called exactly once, on a thread of the waiter.
class ProjectionWaiter {
  public:
    virtual ~ProjectionWaiter() = default;
    virtual void wait(const std::string& invoice_id, std::chrono::milliseconds timeout,
                      std::function<void(bool projected)> done) = 0;
};

// Idempotency-Key claims of POST /v1/invoices (docs/limits.md); Postgres: IdempotencyStore.
// Each call throws infra::postgres::DatabaseUnavailable when the database is down.
class IdempotencyKeys {
  public:
    virtual ~IdempotencyKeys() = default;
    virtual infra::postgres::BeginResult begin(const std::string& project_id,
                                               const std::string& key,
                                               const infra::random::Digest32& fingerprint) = 0;
    virtual bool complete(const std::string& project_id, const std::string& key,
                          const infra::random::Digest32& fingerprint,
                          const infra::postgres::StoredResponse& response) = 0;
    virtual void abandon(const std::string& project_id, const std::string& key,
                         const infra::random::Digest32& fingerprint) = 0;
    // Bound keys (IdempotencyStore, ADR 0091): prepare() before the append, unlock() after an
    // unknown outcome; begin() then answers `resume` with the prepared charge.
    virtual bool prepare(const std::string& project_id, const std::string& key,
                         const infra::random::Digest32& fingerprint,
                         const infra::postgres::PreparedCreate& prepared) = 0;
    virtual void unlock(const std::string& project_id, const std::string& key,
                        const infra::random::Digest32& fingerprint) = 0;
};

// The creation rate limit and monthly quota of a project's plan (docs/limits.md); Postgres:
// RateLimiter. Throws infra::postgres::DatabaseUnavailable.
class CreationLimiter {
  public:
    virtual ~CreationLimiter() = default;
    virtual infra::postgres::LimitDecision take(const std::string& project_id,
                                                const std::string& plan) = 0;
    virtual void refund_quota(const std::string& project_id, const std::string& month) = 0;
};

}  // namespace duepay::api
