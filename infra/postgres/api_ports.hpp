// The Postgres adapters of the API's ports (domain/ports/api.hpp; ADR 0182): key lookups, charge
// reads and pages through the pool, the journal of a charge, the merchant events (ADR 0197), and
// a ProjectionWaiter fed by LISTEN duepay_charges (the projector NOTIFYs each projected invoice).
// The idempotency and limiter ports are IdempotencyStore and RateLimiter. Each translates the
// read model's rows into the port's vocabulary and lets no driver exception out: an unreachable
// database is DatabaseUnavailable.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "domain/ports/api.hpp"
#include "infra/postgres/charge_row.hpp"
#include "infra/postgres/charges_channel.hpp"
#include "infra/postgres/pool.hpp"

namespace duepay::infra::postgres {

// The prepared statements of the API's and the checkout's pools (charge reads and key lookups):
// their pools' on_connect hook.
void prepare_api_statements(pqxx::connection& conn);

// The row as the API's typed view (ADR 0206): status, amounts and addresses parsed once, here;
// throws InfraError (not retryable) for a mode, payment mode, status, amount or address the
// projection cannot have written.
ports::ChargeView charge_view_of(ChargeRow row);

class PgKeyDirectory final : public ports::KeyDirectory {
  public:
    explicit PgKeyDirectory(ConnectionPool& pool) : pool_(pool) {}
    std::optional<ports::KeyOwner> find(const ports::KeyHash& key_hash) override;

  private:
    ConnectionPool& pool_;
};

class PgChargeReader final : public ports::ChargeReader, public ports::ChargeLister {
  public:
    explicit PgChargeReader(ConnectionPool& pool) : pool_(pool) {}
    std::optional<ports::ChargeView> find(const std::string& invoice_id) override;
    std::optional<ports::ChargeStatus> find_status(const std::string& invoice_id) override;
    std::vector<ports::ListedCharge> list(const ports::ChargeListQuery& query) override;

  private:
    ConnectionPool& pool_;
};

class PgChargeHistory final : public ports::ChargeHistory {
  public:
    explicit PgChargeHistory(ConnectionPool& pool) : pool_(pool) {}
    std::vector<std::string> events(const std::string& invoice_id) override;

  private:
    ConnectionPool& pool_;
};

// GET /v1/events over merchant_event_store (webhook_events, docs/events-api.md).
class PgMerchantEvents final : public ports::MerchantEvents {
  public:
    explicit PgMerchantEvents(ConnectionPool& pool) : pool_(pool) {}
    std::vector<ports::MerchantEvent> list(const ports::EventQuery& query) override;
    std::optional<ports::MerchantEvent> find(const ports::ProjectId& project, ports::Mode mode,
                                             const std::string& id) override;

  private:
    ConnectionPool& pool_;
};

// Waiters are completed by notifications; ids notified with nobody waiting are remembered for a
// while (the NOTIFY can beat the Kafka ack to the API). A sweeper thread times waiters out and, if
// the LISTEN connection was lost, re-checks pending waiters against the table.
class PgProjectionWaiter final : public ports::ProjectionWaiter {
  public:
    struct Hooks {
        std::function<void(const std::string& invoice_id)> projected;  // each notified id
        std::function<void()> reconnected;  // the LISTEN connection was re-opened
    };
    // `hooks` (optional) let a cache follow the notifications (api/http/status_cache.hpp).
    PgProjectionWaiter(ConnectionPool& pool, const std::string& database_url, Hooks hooks = {});
    ~PgProjectionWaiter() override;

    void wait(const std::string& invoice_id, std::chrono::milliseconds timeout,
              std::function<void(bool projected)> done) override;

    bool listening() const { return subscription_ && subscription_->listening(); }

  private:
    struct Waiter {
        std::chrono::steady_clock::time_point deadline;
        std::function<void(bool)> done;
    };
    void on_payload(const std::string& payload);
    void sweep_loop();
    bool exists_in_table(const std::string& invoice_id);

    ConnectionPool& pool_;
    Hooks hooks_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::unordered_multimap<std::string, Waiter> waiters_;
    std::unordered_set<std::string> recent_;
    std::deque<std::pair<std::chrono::steady_clock::time_point, std::string>> recent_order_;
    bool recheck_ = false;
    bool stop_ = false;
    std::thread sweeper_;
    std::unique_ptr<ChargesChannel::Subscription> subscription_;
};

}  // namespace duepay::infra::postgres
