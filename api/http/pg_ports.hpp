// The API's ports over Postgres: key lookups and charge reads through the pool, and a
// ProjectionWaiter fed by LISTEN duepay_charges (the projector NOTIFYs each projected invoice).
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "api/http/ports.hpp"
#include "api/http/status_cache.hpp"
#include "infra/postgres/notify_listener.hpp"
#include "infra/postgres/pool.hpp"

namespace duepay::api {

class PgKeyDirectory final : public KeyDirectory {
  public:
    explicit PgKeyDirectory(infra::postgres::ConnectionPool& pool) : pool_(pool) {}
    std::optional<KeyOwner> find(const infra::random::Digest32& key_hash) override;

  private:
    infra::postgres::ConnectionPool& pool_;
};

class PgChargeReader final : public ChargeReader, public ChargeLister {
  public:
    explicit PgChargeReader(infra::postgres::ConnectionPool& pool) : pool_(pool) {}
    std::optional<ChargeRow> find(const std::string& invoice_id) override;
    std::optional<ChargeStatus> find_status(const std::string& invoice_id) override;
    std::vector<infra::postgres::ListedCharge> list(
        const infra::postgres::ChargeListQuery& query) override;

  private:
    infra::postgres::ConnectionPool& pool_;
};

class PgChargeHistory final : public ChargeHistory {
  public:
    explicit PgChargeHistory(infra::postgres::ConnectionPool& pool) : pool_(pool) {}
    std::vector<std::string> events(const std::string& invoice_id) override;

  private:
    infra::postgres::ConnectionPool& pool_;
};

class PgIdempotencyKeys final : public IdempotencyKeys {
  public:
    explicit PgIdempotencyKeys(infra::postgres::ConnectionPool& pool,
                               infra::postgres::IdempotencySettings settings = {})
        : store_(pool, settings) {}
    infra::postgres::BeginResult begin(const std::string& project_id, const std::string& key,
                                       const infra::random::Digest32& fingerprint) override {
        return store_.begin(project_id, key, fingerprint);
    }
    bool complete(const std::string& project_id, const std::string& key,
                  const infra::random::Digest32& fingerprint,
                  const infra::postgres::StoredResponse& response) override {
        return store_.complete(project_id, key, fingerprint, response);
    }
    void abandon(const std::string& project_id, const std::string& key,
                 const infra::random::Digest32& fingerprint) override {
        store_.abandon(project_id, key, fingerprint);
    }
    bool prepare(const std::string& project_id, const std::string& key,
                 const infra::random::Digest32& fingerprint,
                 const infra::postgres::PreparedCreate& prepared) override {
        return store_.prepare(project_id, key, fingerprint, prepared);
    }
    void unlock(const std::string& project_id, const std::string& key,
                const infra::random::Digest32& fingerprint) override {
        store_.unlock(project_id, key, fingerprint);
    }
    // Deletes expired keys, at most `limit` (the api role calls it periodically).
    std::int64_t purge_expired(int limit) { return store_.purge_expired(limit); }

  private:
    infra::postgres::IdempotencyStore store_;
};

// Limits by plan (creation_limits_for_plan); the plan `unmetered` never reaches the database.
class PgCreationLimiter final : public CreationLimiter {
  public:
    explicit PgCreationLimiter(infra::postgres::ConnectionPool& pool) : limiter_(pool) {}
    infra::postgres::LimitDecision take(const std::string& project_id,
                                        const std::string& plan) override {
        return limiter_.take_charge_creation(project_id,
                                             infra::postgres::creation_limits_for_plan(plan));
    }
    void refund_quota(const std::string& project_id, const std::string& month) override {
        if (!month.empty()) limiter_.refund_quota(project_id, month);
    }

  private:
    infra::postgres::RateLimiter limiter_;
};

// Waiters are completed by notifications; ids notified with nobody waiting are remembered for a
// while (the NOTIFY can beat the Kafka ack to the API). A sweeper thread times waiters out and, if
// the LISTEN connection was lost, re-checks pending waiters against the table.
class PgProjectionWaiter final : public ProjectionWaiter {
  public:
    // `cache` (optional) is invalidated by every notification and cleared on a LISTEN reconnect.
    PgProjectionWaiter(infra::postgres::ConnectionPool& pool, const std::string& database_url,
                       StatusCache* cache = nullptr);
    ~PgProjectionWaiter() override;

    void wait(const std::string& invoice_id, std::chrono::milliseconds timeout,
              std::function<void(bool projected)> done) override;

    bool listening() const { return listener_ && listener_->listening(); }

  private:
    struct Waiter {
        std::chrono::steady_clock::time_point deadline;
        std::function<void(bool)> done;
    };
    void on_payload(const std::string& payload);
    void sweep_loop();
    bool exists_in_table(const std::string& invoice_id);

    infra::postgres::ConnectionPool& pool_;
    StatusCache* cache_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::unordered_multimap<std::string, Waiter> waiters_;
    std::unordered_set<std::string> recent_;
    std::deque<std::pair<std::chrono::steady_clock::time_point, std::string>> recent_order_;
    bool recheck_ = false;
    bool stop_ = false;
    std::thread sweeper_;
    std::unique_ptr<infra::postgres::NotifyListener> listener_;
};

}  // namespace duepay::api
