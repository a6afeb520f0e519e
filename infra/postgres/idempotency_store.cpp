#include "infra/postgres/idempotency_store.hpp"

#include <stdexcept>
#include <utility>

#include "infra/error.hpp"
#include "infra/log/log.hpp"

namespace duepay::infra::postgres {

namespace detail {

std::string encode_headers(const std::vector<std::pair<std::string, std::string>>& headers) {
    std::string out;
    for (const auto& [name, value] : headers) {
        if (name.find_first_of(":\r\n") != std::string::npos ||
            value.find_first_of("\r\n") != std::string::npos) {
            throw std::invalid_argument(
                "idempotency: header name or value with a line break or colon");
        }
        out.append(name).append(": ").append(value).append(1, '\n');
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> decode_headers(std::string_view text) {
    std::vector<std::pair<std::string, std::string>> out;
    while (!text.empty()) {
        const auto nl = text.find('\n');
        const auto line = text.substr(0, nl);
        const auto colon = line.find(": ");
        if (colon != std::string_view::npos) {
            out.emplace_back(std::string(line.substr(0, colon)),
                             std::string(line.substr(colon + 2)));
        }
        if (nl == std::string_view::npos) break;
        text.remove_prefix(nl + 1);
    }
    return out;
}

}  // namespace detail

namespace {

constexpr log::Logger kLog{"postgres"};
constexpr int kHolderLockClass = 0x6469;  // pg_advisory_lock(int, int): (idempotency, holder id)

std::string seconds(std::chrono::seconds s) { return std::to_string(s.count()) + " seconds"; }

}  // namespace

IdempotencyHolder::IdempotencyHolder(std::string database_url) : url_(std::move(database_url)) {}

IdempotencyHolder::~IdempotencyHolder() = default;

void IdempotencyHolder::maintain() noexcept {
    if (conn_) {
        try {
            pqxx::nontransaction q(*conn_);
            q.exec("select 1");
            return;
        } catch (const std::exception& e) {
            id_.store(0, std::memory_order_release);
            conn_.reset();
            kLog.warn() << "idempotency holder session lost (keys claimed now wait for their "
                           "lock timeout until it is back): "
                        << e.what();
            warned_ = true;
        }
    }
    try {
        auto conn = std::make_unique<pqxx::connection>(url_);
        pqxx::nontransaction q(*conn);
        const auto id = q.exec("select nextval('idempotency_holder_ids')::integer")[0][0].as<int>();
        if (!q.exec_params1("select pg_try_advisory_lock($1, $2)", kHolderLockClass, id)[0]
                 .as<bool>()) {
            throw InfraError("advisory lock of a fresh holder id was taken", true);
        }
        conn_ = std::move(conn);
        id_.store(id, std::memory_order_release);
        kLog.info() << "idempotency holder " << id << " (ADR 0219)";
        warned_ = false;
    } catch (const std::exception& e) {
        if (!warned_) {
            kLog.warn() << "idempotency holder session not open (retried every second): "
                        << e.what();
            warned_ = true;
        }
    }
}

BeginResult IdempotencyStore::begin(const domain::ProjectId& project, const std::string& key,
                                    const random::Digest32& fingerprint) {
    const pqxx::binarystring fp(fingerprint.data(), fingerprint.size());
    const int holder = holder_ ? holder_->id() : 0;  // 0: none (nullif below)
    // A few rounds at most: the row can disappear (abandoned, purged) between our two statements.
    for (int round = 0; round < 5; ++round) {
        auto out = pool_.with_transaction([&](pqxx::work& tx) -> std::optional<BeginResult> {
            // Claim the key: a fresh insert, or a takeover of an expired row or of an unbound
            // in-flight row whose owner is gone (lock_timeout passed, or its holder's session is
            // gone: ADR 0219). Waits for a concurrent claimant's commit.
            auto claimed = tx.exec_params(
                "insert into idempotency_keys as k (project_id, key, fingerprint, state, "
                "locked_until, created_at, "
                "expires_at, holder) values ($1, $2, $3, 'in_flight', "
                "clock_timestamp() + $4::interval, clock_timestamp(), "
                "clock_timestamp() + $5::interval, nullif($6::integer, 0)) "
                "on conflict (project_id, key) do update set fingerprint = excluded.fingerprint, "
                "state = 'in_flight', "
                "locked_until = excluded.locked_until, response_status = null, response_headers = "
                "null, "
                "response_body = null, created_at = excluded.created_at, completed_at = null, "
                "expires_at = excluded.expires_at, holder = excluded.holder "
                ", invoice_id = null, prepared_event = null, prepared_body = null "
                "where k.expires_at < clock_timestamp() or (k.state = 'in_flight' and "
                "(k.locked_until < clock_timestamp() or not idempotency_holder_alive(k.holder)) "
                "and k.prepared_event is null) "
                "returning 1",
                project.value, key, fp, seconds(settings_.lock_timeout),
                seconds(settings_.retention), holder);
            if (!claimed.empty())
                return BeginResult{BeginOutcome::created, std::nullopt, std::nullopt};
            // A bound row whose owner is gone (unlocked, its lock timed out, or its holder's
            // session is gone): resume it, if the request is the same. One caller wins the update;
            // the others see it in flight.
            auto resumed = tx.exec_params(
                "update idempotency_keys set locked_until = clock_timestamp() + $4::interval, "
                "holder = nullif($5::integer, 0) "
                "where project_id = $1 and key = $2 and fingerprint = $3 and state = 'in_flight' "
                "and prepared_event is not null and (locked_until < clock_timestamp() "
                "or not idempotency_holder_alive(holder)) "
                "returning invoice_id, prepared_event, prepared_body",
                project.value, key, fp, seconds(settings_.lock_timeout), holder);
            if (!resumed.empty()) {
                PreparedCreate prepared;
                prepared.invoice_id = resumed[0][0].as<std::string>();
                prepared.event = pqxx::binarystring(resumed[0][1]).str();
                prepared.body = pqxx::binarystring(resumed[0][2]).str();
                return BeginResult{BeginOutcome::resume, std::nullopt, std::move(prepared)};
            }
            auto rows = tx.exec_params(
                "select fingerprint, state, response_status, response_headers, response_body "
                "from idempotency_keys where project_id = $1 and key = $2",
                project.value, key);
            if (rows.empty()) return std::nullopt;  // gone meanwhile: claim again
            const auto& r = rows[0];
            const pqxx::binarystring stored(r[0]);
            if (stored.size() != fingerprint.size() ||
                !random::constant_time_equal(std::span(stored.data(), stored.size()),
                                             fingerprint)) {
                return BeginResult{BeginOutcome::mismatch, std::nullopt, std::nullopt};
            }
            if (r[1].as<std::string>() == "in_flight") {
                return BeginResult{BeginOutcome::in_flight, std::nullopt, std::nullopt};
            }
            StoredResponse response;
            response.status = r[2].as<int>();
            response.headers =
                detail::decode_headers(r[3].is_null() ? std::string() : r[3].as<std::string>());
            const pqxx::binarystring body(r[4]);
            response.body = body.str();
            return BeginResult{BeginOutcome::replay, std::move(response), std::nullopt};
        });
        if (out) return *out;
    }
    throw DatabaseUnavailable("idempotency: the key kept changing under us; retry");
}

bool IdempotencyStore::complete(const domain::ProjectId& project, const std::string& key,
                                const random::Digest32& fingerprint,
                                const StoredResponse& response) {
    if (response.status < 200 || response.status > 299) {
        throw InfraError("idempotency: only successful responses are stored", false);
    }
    const pqxx::binarystring fp(fingerprint.data(), fingerprint.size());
    const pqxx::binarystring body(response.body.data(), response.body.size());
    const std::string headers = detail::encode_headers(response.headers);
    return pool_.with_transaction([&](pqxx::work& tx) {
        auto r = tx.exec_params(
            "update idempotency_keys set state = 'completed', response_status = $4, "
            "response_headers = $5, "
            "response_body = $6, completed_at = clock_timestamp(), "
            "expires_at = clock_timestamp() + $7::interval "
            "where project_id = $1 and key = $2 and fingerprint = $3 and state = 'in_flight'",
            project.value, key, fp, response.status, headers, body, seconds(settings_.retention));
        return r.affected_rows() == 1;
    });
}

bool IdempotencyStore::prepare(const domain::ProjectId& project, const std::string& key,
                               const random::Digest32& fingerprint,
                               const PreparedCreate& prepared) {
    const pqxx::binarystring fp(fingerprint.data(), fingerprint.size());
    const pqxx::binarystring event(prepared.event.data(), prepared.event.size());
    const pqxx::binarystring body(prepared.body.data(), prepared.body.size());
    return pool_.with_transaction([&](pqxx::work& tx) {
        auto r = tx.exec_params(
            "update idempotency_keys set invoice_id = $4, prepared_event = $5, prepared_body = $6 "
            "where project_id = $1 and key = $2 and fingerprint = $3 and state = 'in_flight' "
            "and prepared_event is null",
            project.value, key, fp, prepared.invoice_id, event, body);
        return r.affected_rows() == 1;
    });
}

void IdempotencyStore::unlock(const domain::ProjectId& project, const std::string& key,
                              const random::Digest32& fingerprint) {
    const pqxx::binarystring fp(fingerprint.data(), fingerprint.size());
    pool_.with_transaction([&](pqxx::work& tx) {
        tx.exec_params(
            "update idempotency_keys set locked_until = clock_timestamp() - interval '1 "
            "millisecond' "
            "where project_id = $1 and key = $2 and fingerprint = $3 and state = 'in_flight'",
            project.value, key, fp);
    });
}

void IdempotencyStore::abandon(const domain::ProjectId& project, const std::string& key,
                               const random::Digest32& fingerprint) {
    const pqxx::binarystring fp(fingerprint.data(), fingerprint.size());
    pool_.with_transaction([&](pqxx::work& tx) {
        tx.exec_params(
            "delete from idempotency_keys where project_id = $1 and key = $2 and fingerprint = $3 "
            "and state = 'in_flight'",
            project.value, key, fp);
    });
}

std::int64_t IdempotencyStore::purge_expired(int limit) {
    return pool_.with_transaction([&](pqxx::work& tx) {
        return tx.exec_params("select purge_idempotency_keys($1)", limit)[0][0].as<std::int64_t>();
    });
}

}  // namespace duepay::infra::postgres
