// In-memory doubles of the API's ports (domain/ports/api.hpp) and of the event log, shared by the
// unit tests of tests/unit/api/. Each keeps the semantics of its Postgres or Kafka adapter that
// the routes rely on (docs/limits.md for keys and limits) and records what it was asked, so a
// test can assert on it. Unit tests only: integration tests run against the real stack.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/http/port_names.hpp"
#include "domain/evm/address.hpp"
#include "domain/ports/errors.hpp"
#include "domain/ports/event_log.hpp"
#include "infra/random/key_material.hpp"

namespace duepay::doubles {

// The typed view's values from the text a test reads best (EIP-55 addresses; a bad literal fails
// the test at once).
inline domain::Address address(std::string_view eip55) {
    return domain::evm::parse_address(eip55).value();
}

// A KeyOwner of `project` and `mode` with the fields the routes read.
inline api::KeyOwner key_owner(const std::string& key_id, const std::string& project,
                               api::Mode mode) {
    api::KeyOwner owner;
    owner.key_id = key_id;
    owner.project_id = api::ProjectId{project};
    owner.mode = mode;
    owner.plan = "pro";
    owner.payment_window_seconds = 900;
    owner.payout_address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    return owner;
}

// The project "Acme" of `project` as the account store shows it (plan pro, 15 minute window).
inline api::ProjectView project_view(const std::string& project) {
    api::ProjectView p;
    p.id = api::ProjectId{project};
    p.name = "Acme";
    p.plan = "pro";
    p.payment_window_seconds = 900;
    p.created_at = "2026-11-20T10:00:00Z";
    return p;
}

// Keys by their raw text, hashed as the API hashes a presented key.
class FakeKeys final : public api::KeyDirectory {
  public:
    void add(const std::string& raw_key, api::KeyOwner owner) {
        owner.key_hash = infra::random::sha256(raw_key);
        owners[owner.key_hash] = std::move(owner);
    }
    std::optional<api::KeyOwner> find(const api::KeyHash& hash) override {
        ++lookups;
        auto it = owners.find(hash);
        if (it == owners.end()) return std::nullopt;
        return it->second;
    }
    std::map<api::KeyHash, api::KeyOwner> owners;
    int lookups = 0;
};

// Charges by invoice id (0x + 64 hex); the status read is derived from the same view.
class FakeReader final : public api::ChargeReader {
  public:
    std::optional<api::ChargeView> find(const std::string& id) override {
        auto it = rows.find(id);
        if (it == rows.end()) return std::nullopt;
        return it->second;
    }
    std::optional<api::ChargeStatus> find_status(const std::string& id) override {
        auto it = rows.find(id);
        if (it == rows.end()) return std::nullopt;
        return api::ChargeStatus{it->second.project_id, it->second.status, it->second.mode};
    }
    std::map<std::string, api::ChargeView> rows;
};

// Answers at once, `projected` or not, and records each waited id.
class FakeWaiter final : public api::ProjectionWaiter {
  public:
    void wait(const std::string& id, std::chrono::milliseconds,
              std::function<void(bool)> done) override {
        waited.push_back(id);
        done(projected);
    }
    std::vector<std::string> waited;
    bool projected = true;
};

// Keeps every record and answers with `outcome` (persisted: partition 0, offsets 0, 1, ...).
class FakeLog final : public ports::EventLog {
  public:
    void append_async(ports::LogRecord record,
                      std::function<void(ports::AppendResult)> done) override {
        records.push_back(record);
        ports::AppendResult result;
        result.status = outcome;
        if (outcome == ports::AppendStatus::persisted) {
            result.partition = 0;
            result.offset = static_cast<std::int64_t>(records.size()) - 1;
        } else {
            result.error = "Local: Message timed out";
        }
        done(result);
    }
    std::vector<ports::LogRecord> records;
    ports::AppendStatus outcome = ports::AppendStatus::persisted;
};

// Idempotency keys with the store's semantics (docs/limits.md, ADR 0091), in memory.
class FakeIdempotency final : public api::IdempotencyKeys {
  public:
    struct Row {
        api::RequestFingerprint fingerprint{};
        std::optional<api::StoredResponse> response;  // set once completed
        std::optional<api::PreparedCreate> prepared;  // set by prepare (bound)
        bool locked = true;                           // false after unlock
    };
    api::BeginResult begin(const api::ProjectId& project, const std::string& key,
                           const api::RequestFingerprint& fp) override {
        ++begins;
        auto [it, inserted] =
            rows.try_emplace(name(project, key), Row{fp, std::nullopt, std::nullopt, true});
        if (inserted) return {api::BeginOutcome::created, std::nullopt, std::nullopt};
        if (it->second.fingerprint != fp)
            return {api::BeginOutcome::mismatch, std::nullopt, std::nullopt};
        if (it->second.response)
            return {api::BeginOutcome::replay, it->second.response, std::nullopt};
        if (it->second.prepared && !it->second.locked) {
            it->second.locked = true;
            return {api::BeginOutcome::resume, std::nullopt, it->second.prepared};
        }
        return {api::BeginOutcome::in_flight, std::nullopt, std::nullopt};
    }
    bool prepare(const api::ProjectId& project, const std::string& key,
                 const api::RequestFingerprint& fp, const api::PreparedCreate& prepared) override {
        ++prepares;
        auto it = rows.find(name(project, key));
        if (taken_over_before_prepare && it != rows.end()) {
            it->second.prepared = *taken_over_before_prepare;  // another attempt bound it first
            return false;
        }
        if (it == rows.end() || it->second.fingerprint != fp || it->second.response ||
            it->second.prepared) {
            return false;
        }
        it->second.prepared = prepared;
        return true;
    }
    void unlock(const api::ProjectId& project, const std::string& key,
                const api::RequestFingerprint& fp) override {
        ++unlocks;
        auto it = rows.find(name(project, key));
        if (it != rows.end() && it->second.fingerprint == fp && !it->second.response)
            it->second.locked = false;
    }
    bool complete(const api::ProjectId& project, const std::string& key,
                  const api::RequestFingerprint& fp, const api::StoredResponse& response) override {
        ++completes;
        auto it = rows.find(name(project, key));
        if (it == rows.end() || it->second.fingerprint != fp) return false;
        it->second.response = response;
        return true;
    }
    void abandon(const api::ProjectId& project, const std::string& key,
                 const api::RequestFingerprint& fp) override {
        ++abandons;
        auto it = rows.find(name(project, key));
        if (it != rows.end() && it->second.fingerprint == fp && !it->second.response)
            rows.erase(it);
    }
    std::map<std::string, Row> rows;  // by "<project>/<key>"
    // Set: prepare() finds the row taken over and bound to this charge by another attempt.
    std::optional<api::PreparedCreate> taken_over_before_prepare;
    int begins = 0;
    int completes = 0;
    int abandons = 0;
    int prepares = 0;
    int unlocks = 0;

  private:
    static std::string name(const api::ProjectId& project, const std::string& key) {
        return project.value + "/" + key;
    }
};

// Answers `decision` (or throws ports::StoreUnavailable when `fail`) and records what it was asked.
class FakeLimiter final : public api::CreationLimiter {
  public:
    api::LimitDecision take(const api::ProjectId& project, const std::string& plan) override {
        ++takes;
        projects.push_back(project.value);
        plans.push_back(plan);
        if (fail) throw ports::StoreUnavailable("connection refused");
        return decision;
    }
    void refund_quota(const api::ProjectId& project, const std::string& month) override {
        refunds.push_back(project.value + "@" + month);
    }
    api::LimitDecision decision{api::LimitOutcome::allowed, 0, "2026-11-01", 1, ""};
    bool fail = false;
    int takes = 0;
    std::vector<std::string> projects;
    std::vector<std::string> plans;
    std::vector<std::string> refunds;  // "<project>@<month>"
};

// Pages of `rows` (given newest first) in order, at most query.limit, after query.after as the
// store's keyset page is (strictly older by created_us, then invoice id); records each query.
class FakeLister final : public api::ChargeLister {
  public:
    std::vector<api::ListedCharge> list(const api::ChargeListQuery& query) override {
        queries.push_back(query);
        std::vector<api::ListedCharge> out;
        for (const auto& row : rows) {
            if (out.size() == query.limit) break;
            if (query.after && std::pair(row.created_us, row.charge.invoice_id) >=
                                   std::pair(query.after->created_us, query.after->invoice_id)) {
                continue;
            }
            out.push_back(row);
        }
        return out;
    }
    std::vector<api::ListedCharge> rows;
    std::vector<api::ChargeListQuery> queries;
};

// Merchant events in listing order (newest first), each of one project and mode; list() returns
// the first query.limit of those the query selects, as the store's keyset page does.
class FakeMerchantEvents final : public api::MerchantEvents {
  public:
    struct Stored {
        api::ProjectId project;
        api::Mode mode = api::Mode::test;
        api::MerchantEvent event;
    };
    std::vector<api::MerchantEvent> list(const api::EventQuery& query) override {
        queries.push_back(query);
        std::vector<api::MerchantEvent> out;
        for (const auto& s : stored) {
            if (out.size() == query.limit) break;
            if (s.project.value == query.project_id.value && s.mode == query.mode)
                out.push_back(s.event);
        }
        return out;
    }
    std::optional<api::MerchantEvent> find(const api::ProjectId& project, api::Mode mode,
                                           const std::string& id) override {
        for (const auto& s : stored) {
            if (s.project.value == project.value && s.mode == mode && s.event.position.id == id)
                return s.event;
        }
        return std::nullopt;
    }
    std::vector<Stored> stored;
    std::vector<api::EventQuery> queries;
};

// Projects by id; records each call so a test sees what a route asked of the store, and answers
// with what a test set (`verify_answer`, `roll_answer`). `unavailable` makes every call throw as
// the Postgres adapter does when the database is unreachable.
class FakeAccounts final : public api::Accounts {
  public:
    std::optional<api::ProjectView> find_project(const api::ProjectId& project) override {
        record("find_project " + project.value);
        auto it = projects.find(project.value);
        if (it == projects.end()) return std::nullopt;
        return it->second;
    }
    std::optional<api::KeyRoll> roll_key(const std::string& key_id, int expires) override {
        record("roll_key " + key_id + " " + std::to_string(expires));
        return roll_answer;
    }
    std::optional<api::ProjectView> update_project(const api::ProjectId& project,
                                                   const api::ProjectUpdate& update,
                                                   const std::string& key_id) override {
        record("update_project " + project.value + " by " + key_id);
        updates.push_back(update);
        auto it = projects.find(project.value);
        if (it == projects.end()) return std::nullopt;
        auto& p = it->second;
        if (update.name) p.name = *update.name;
        if (update.payment_window_seconds)
            p.payment_window_seconds = *update.payment_window_seconds;
        return p;
    }
    api::IssuedChallenge issue_wallet_challenge(const api::ProjectId& project,
                                                const std::string& address,
                                                int ttl_seconds) override {
        record("issue_wallet_challenge " + project.value + " " + address + " " +
               std::to_string(ttl_seconds));
        auto it = projects.find(project.value);
        return {"wch_1",
                address,
                "n0nce",
                "2026-11-24T03:10:00Z",
                "Sign this: n0nce",
                it == projects.end() ? std::nullopt : it->second.payout_address};
    }
    domain::Result<api::ProjectView> verify_wallet(const api::WalletProofRequest& proof,
                                                   const std::string& key_id) override {
        record("verify_wallet " + proof.project_id.value + " " + proof.address + " by " + key_id);
        proofs.push_back(proof);
        return verify_answer;
    }

    std::map<std::string, api::ProjectView> projects;
    std::optional<api::KeyRoll> roll_answer;
    domain::Result<api::ProjectView> verify_answer = domain::Error{"signer_mismatch", "no"};
    bool unavailable = false;
    std::vector<std::string> calls;
    std::vector<api::ProjectUpdate> updates;
    std::vector<api::WalletProofRequest> proofs;

  private:
    void record(std::string call) {
        calls.push_back(std::move(call));
        if (unavailable) throw ports::StoreUnavailable("connection refused");
    }
};

// Webhook endpoints of any project and mode, in creation order; every call is recorded. An endpoint
// of another project or mode is not found, as in the Postgres adapter. `unavailable` makes every
// call throw ports::StoreUnavailable.
class FakeWebhookEndpoints final : public api::WebhookEndpoints {
  public:
    api::WebhookEndpoint create(const api::WebhookEndpoint& endpoint) override {
        record("create " + endpoint.project_id.value);
        auto e = endpoint;
        e.status = "enabled";
        e.created_at = e.updated_at = "2026-11-24T02:00:00.000Z";
        endpoints.push_back(e);
        return e;
    }
    std::vector<api::WebhookEndpoint> list(const api::ProjectId& project, api::Mode mode,
                                           std::size_t limit,
                                           const std::optional<std::string>& after) override {
        record("list " + project.value + " " + std::to_string(limit) + " " + after.value_or("-"));
        std::vector<api::WebhookEndpoint> out;
        for (auto it = endpoints.rbegin(); it != endpoints.rend() && out.size() < limit; ++it) {
            if (it->project_id.value == project.value && it->mode == mode) out.push_back(*it);
        }
        return out;
    }
    std::optional<api::WebhookEndpoint> find(const api::ProjectId& project, api::Mode mode,
                                             const std::string& id) override {
        record("find " + id);
        auto* e = mine(project, mode, id);
        if (e == nullptr) return std::nullopt;
        return *e;
    }
    std::optional<api::WebhookEndpoint> update(const api::ProjectId& project, api::Mode mode,
                                               const std::string& id,
                                               const api::WebhookEndpointPatch& patch) override {
        record("update " + id);
        patches.push_back(patch);
        auto* e = mine(project, mode, id);
        if (e == nullptr) return std::nullopt;
        if (patch.url) e->url = *patch.url;
        if (patch.events) e->events = *patch.events;
        if (patch.description) e->description = *patch.description;
        if (patch.status) e->status = *patch.status;
        return *e;
    }
    bool remove(const api::ProjectId& project, api::Mode mode, const std::string& id) override {
        record("remove " + id);
        auto* e = mine(project, mode, id);
        if (e == nullptr) return false;
        e->id.clear();  // never found again
        return true;
    }
    std::optional<api::WebhookEndpoint> rotate_secret(const api::ProjectId& project, api::Mode mode,
                                                      const std::string& id,
                                                      const std::string& secret,
                                                      std::chrono::seconds overlap) override {
        record("rotate " + id + " " + std::to_string(overlap.count()));
        auto* e = mine(project, mode, id);
        if (e == nullptr) return std::nullopt;
        e->secret = secret;
        return *e;
    }
    bool send_test(const api::ProjectId& project, api::Mode mode, const std::string& endpoint_id,
                   const domain::webhooks::WebhookEvent& event) override {
        record("send_test " + endpoint_id);
        if (mine(project, mode, endpoint_id) == nullptr) return false;
        sent.push_back(event);
        return true;
    }
    bool redeliver(const api::ProjectId& project, api::Mode mode, const std::string& event_id,
                   const std::string& endpoint_id) override {
        record("redeliver " + event_id + " " + endpoint_id);
        return mine(project, mode, endpoint_id) != nullptr;
    }
    std::optional<std::vector<api::WebhookAttempt>> attempts(
        const api::ProjectId& project, api::Mode mode, const std::string& endpoint_id,
        std::size_t limit, std::optional<std::int64_t> before) override {
        record("attempts " + endpoint_id + " " + std::to_string(limit) + " " +
               (before ? std::to_string(*before) : "-"));
        if (mine(project, mode, endpoint_id) == nullptr) return std::nullopt;
        return std::vector<api::WebhookAttempt>{};
    }

    std::vector<api::WebhookEndpoint> endpoints;
    std::vector<api::WebhookEndpointPatch> patches;
    std::vector<domain::webhooks::WebhookEvent> sent;
    std::vector<std::string> calls;
    bool unavailable = false;

  private:
    void record(std::string call) {
        calls.push_back(std::move(call));
        if (unavailable) throw ports::StoreUnavailable("connection refused");
    }
    api::WebhookEndpoint* mine(const api::ProjectId& project, api::Mode mode,
                               const std::string& id) {
        for (auto& e : endpoints) {
            if (e.id == id && e.project_id.value == project.value && e.mode == mode) return &e;
        }
        return nullptr;
    }
};

}  // namespace duepay::doubles
