// The webhook delivery queue as the dispatcher (consumers/roles/webhook_dispatcher.cpp) uses it:
// one connection, opened by `connect()` and dropped by `reset()` after a failure; each call is one
// transaction over webhook_store.hpp's statements. Here so consumers/ names no libpqxx type (ADR
// 0205). Throws what Postgres throws; the dispatcher resets and retries (a lost claim or record is
// safe: leased deliveries are claimed again after the lease).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "infra/postgres/webhook_store.hpp"

namespace duepay::infra::postgres {

class WebhookQueue {
  public:
    explicit WebhookQueue(std::string database_url) : url_(std::move(database_url)) {}

    // Opens the connection unless an open one is held.
    void connect();
    // Drops the connection (the next connect() opens a new one).
    void reset() { conn_.reset(); }

    // claim_webhook_deliveries in a transaction of its own.
    std::vector<ClaimedDelivery> claim(std::size_t limit, std::size_t per_endpoint,
                                       std::chrono::milliseconds lease, std::int64_t lease_token);

    // Records the outcomes in one transaction. If that fails for another reason than a lost
    // connection, each is tried alone and one that still fails is logged and dropped: its lease
    // runs out and the delivery is sent again (at least once), instead of one outcome blocking
    // the others. A lost connection throws and leaves `outcomes` as they were (recorded once the
    // database answers again); otherwise `outcomes` is empty on return.
    void record(std::vector<AttemptOutcome>& outcomes);

    WebhookQueueDepth depth();

    // Disables endpoints failing for longer than `disable_after` (returns their ids) and purges
    // attempts older than `keep_attempts`, in one transaction.
    std::vector<std::string> housekeeping(std::chrono::seconds disable_after,
                                          std::chrono::seconds keep_attempts);

  private:
    pqxx::connection& connection();

    std::string url_;
    std::unique_ptr<pqxx::connection> conn_;
};

}  // namespace duepay::infra::postgres
