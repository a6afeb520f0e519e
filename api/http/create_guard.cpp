#include "api/http/create_guard.hpp"

#include <exception>
#include <utility>

#include "api/http/envelope.hpp"
#include "infra/log/log.hpp"

namespace duepay::api {
namespace {

constexpr infra::log::Logger kLog{"api"};

}  // namespace

bool CreateGuard::settle() {
    std::lock_guard lock(mutex);
    return !std::exchange(settled, true);
}

bool CreateGuard::prepare(const PreparedCreate& charge) {
    if (!key) return true;
    if (!keys->prepare(project_id, *key, fingerprint, charge)) {
        // Taken over meanwhile (ADR 0219: our holder looked dead, or the lock timed out): the row
        // is the new owner's, possibly bound to its charge; settling must not free it.
        key.reset();
        return false;
    }
    prepared = true;
    return true;
}

void CreateGuard::release(bool refund_quota) noexcept {
    if (!settle()) return;
    try {
        if (key) keys->abandon(project_id, *key, fingerprint);
    } catch (const std::exception& e) {
        kLog.warn() << "api: abandon of idempotency key failed: " << e.what();
    }
    try {
        if (refund_quota && quota_month) limiter->refund_quota(project_id, *quota_month);
    } catch (const std::exception& e) {
        kLog.warn() << "api: quota refund failed: " << e.what();
    }
}

void CreateGuard::unlock() noexcept {
    if (!settle() || !key) return;
    try {
        keys->unlock(project_id, *key, fingerprint);
    } catch (const std::exception& e) {
        kLog.warn() << "api: unlock of idempotency key failed: " << e.what();
    }
}

void CreateGuard::fail_safe() noexcept {
    if (prepared) {
        unlock();
    } else {
        release(true);
    }
}

void CreateGuard::complete(const ApiResponse& response) noexcept {
    if (!settle() || !key) return;
    StoredResponse stored;
    stored.status = response.status;
    stored.headers.assign(response.headers.begin(), response.headers.end());
    stored.body = response.body;
    try {
        if (!keys->complete(project_id, *key, fingerprint, stored)) {
            kLog.warn() << "api: idempotency key of " << project_id.value
                        << " was no longer ours at completion";
        }
    } catch (const std::exception& e) {
        kLog.warn() << "api: storing the idempotent response failed: " << e.what();
    }
}

ApiResponse idempotency_refusal(BeginOutcome outcome) {
    if (outcome == BeginOutcome::in_flight) {
        return error_response(409, "idempotency_key_in_use",
                              "a request with this Idempotency-Key is in progress; retry later");
    }
    return error_response(422, "idempotency_key_reused",
                          "this Idempotency-Key was used with a different request");
}

ApiResponse replayed(const StoredResponse& stored) {
    ApiResponse r;
    r.status = stored.status;
    r.body = stored.body;
    for (const auto& [name, value] : stored.headers) r.headers[name] = value;
    return r;
}

}  // namespace duepay::api
