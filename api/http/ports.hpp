// What the routes need from the world, as small interfaces (STYLE rule 2). Postgres adapters are in
// pg_ports.hpp; unit tests use in-memory doubles.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "infra/postgres/account_store.hpp"
#include "infra/postgres/charge_row.hpp"
#include "infra/postgres/charge_store.hpp"

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

// Waits until the projector has written a charge row. `done(true)` once the row exists,
// `done(false)` when `timeout` passed first; called exactly once, on a thread of the waiter.
class ProjectionWaiter {
public:
    virtual ~ProjectionWaiter() = default;
    virtual void wait(const std::string& invoice_id, std::chrono::milliseconds timeout,
                      std::function<void(bool projected)> done) = 0;
};

}  // namespace duepay::api
