// The guard of an admitted create (docs/design.md, docs/limits.md): what the create holds from
// the Idempotency-Key claim and the quota unit until it answers, and how each outcome settles it.
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "api/http/api_types.hpp"
#include "api/http/port_names.hpp"

namespace duepay::api {

// Settled once: complete() stores the 201 for replays; release() frees the key and, for a failure
// that created no charge, gives the quota unit back; unlock() keeps the key bound to the prepared
// charge for a retry (unknown append outcome, ADR 0091). The settling calls never throw (they run
// on the event log's callback thread); a database error is logged, and the key stays locked until
// its lock times out or this process's holder session ends (ADR 0219).
struct CreateGuard {
    IdempotencyKeys* keys = nullptr;
    CreationLimiter* limiter = nullptr;
    ProjectId project_id;
    std::optional<std::string> key;  // set once begin() gave us the key
    RequestFingerprint fingerprint{};
    std::optional<std::string> quota_month;  // set once the limiter allowed (metered plans)
    bool prepared = false;  // the key is bound to the charge being appended (never deleted now)
    bool resumed = false;   // this request resumed a key bound by an earlier attempt
    std::mutex mutex;
    bool settled = false;

    // True for the first caller only.
    bool settle();

    // Binds the key to the charge about to be appended (no-op without a key). Throws
    // ports::StoreUnavailable; false if the key is no longer ours (then the guard forgets it:
    // release() gives the quota unit back but leaves the new owner's row alone).
    bool prepare(const PreparedCreate& charge);

    // Frees the key (only for failures after which no event of this key can be in the log) and,
    // with `refund_quota`, gives the quota unit back.
    void release(bool refund_quota) noexcept;

    // After an unknown outcome: the key stays bound to the prepared charge and is free for the
    // retry at once; the quota unit stays taken (the charge may exist).
    void unlock() noexcept;

    // Settles after an exception: a bound key is unlocked, anything else released with a refund.
    void fail_safe() noexcept;

    // Stores the 201 for replays of the key.
    void complete(const ApiResponse& response) noexcept;
};

// The stored answer of a completed key, as the response to a replay.
ApiResponse replayed(const StoredResponse& stored);

// The answer to a key that cannot be used now (create and refund routes alike): `in_flight` is a
// 409 idempotency_key_in_use, `mismatch` a 422 idempotency_key_reused. Only for those two.
ApiResponse idempotency_refusal(BeginOutcome outcome);

}  // namespace duepay::api
