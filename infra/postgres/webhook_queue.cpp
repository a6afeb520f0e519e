// The dispatcher's delivery queue (webhook_queue.hpp).
#include "infra/postgres/webhook_queue.hpp"

#include "infra/log/log.hpp"

namespace duepay::infra::postgres {
namespace {

constexpr log::Logger kLog{"webhooks"};

}  // namespace

void WebhookQueue::connect() {
    if (!conn_ || !conn_->is_open()) conn_ = std::make_unique<pqxx::connection>(url_);
}

pqxx::connection& WebhookQueue::connection() {
    connect();
    return *conn_;
}

std::vector<ClaimedDelivery> WebhookQueue::claim(std::size_t limit, std::size_t per_endpoint,
                                                 std::chrono::milliseconds lease,
                                                 std::int64_t lease_token) {
    pqxx::work tx(connection());
    auto claimed = claim_webhook_deliveries(tx, limit, per_endpoint, lease, lease_token);
    tx.commit();
    return claimed;
}

void WebhookQueue::record(std::vector<AttemptOutcome>& outcomes) {
    try {
        pqxx::work tx(connection());
        record_webhook_attempts(tx, outcomes);
        tx.commit();
        outcomes.clear();
        return;
    } catch (const pqxx::broken_connection&) {
        throw;  // kept, recorded once the database answers again
    } catch (const std::exception& e) {
        kLog.warn() << "webhooks: recording " << outcomes.size()
                    << " outcomes failed, one by one now: " << e.what();
    }
    for (const auto& o : outcomes) {
        try {
            pqxx::work tx(connection());
            record_webhook_attempts(tx, {o});
            tx.commit();
        } catch (const pqxx::broken_connection&) {
            throw;
        } catch (const std::exception& e) {
            kLog.warn() << "webhooks: outcome of " << o.event_id << " for " << o.endpoint_id
                        << " dropped (the lease will resend it): " << e.what();
        }
    }
    outcomes.clear();
}

WebhookQueueDepth WebhookQueue::depth() {
    pqxx::read_transaction tx(connection());
    return webhook_queue_depth(tx);
}

std::vector<std::string> WebhookQueue::housekeeping(std::chrono::seconds disable_after,
                                                    std::chrono::seconds keep_attempts) {
    pqxx::work tx(connection());
    auto disabled = disable_failing_webhook_endpoints(tx, disable_after);
    purge_webhook_attempts(tx, keep_attempts);
    tx.commit();
    return disabled;
}

}  // namespace duepay::infra::postgres
