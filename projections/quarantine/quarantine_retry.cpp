// Quarantine list and retry (quarantine_retry.hpp).
#include "projections/quarantine/quarantine_retry.hpp"

#include <pqxx/pqxx>

#include "domain/events/event_json.hpp"
#include "infra/kafka/kafka_consumer.hpp"
#include "infra/postgres/charge_store.hpp"
#include "infra/postgres/pool.hpp"
#include "projections/charges/charge_projector.hpp"
#include "projections/webhooks/webhook_enqueue.hpp"

namespace duepay::projections::quarantine {
namespace {

namespace pg = infra::postgres;

// The consumer's own apply, in a savepoint: nullopt when it now applies, else the error.
std::optional<std::string> reapply(pqxx::work& tx, const pg::QuarantineEntry& e,
                                   Reapplier reapplier) {
    if (reapplier == Reapplier::decode_only) {
        auto event = domain::events::decode_event(e.record.value);
        if (!event) return event.error().message;
        return std::nullopt;
    }
    infra::kafka::ConsumedMessage message;
    message.topic = e.record.topic;
    message.partition = e.record.partition;
    message.offset = e.record.offset;
    message.key = e.record.key.value_or("");
    message.value = e.record.value;
    if (reapplier == Reapplier::webhooks) {
        return webhooks::reapply_webhook_message(tx, message);  // docs/webhooks.md
    }
    return charges::reapply_message(tx, message);
}

}  // namespace

std::vector<pg::QuarantineEntry> list_quarantined(const std::string& database_url,
                                                  const std::optional<std::string>& group,
                                                  bool include_resolved) {
    try {
        pqxx::connection conn(database_url);
        pqxx::read_transaction tx(conn);
        return pg::list_quarantined(tx, group, include_resolved);
    } catch (const pqxx::broken_connection& e) {
        throw pg::DatabaseUnavailable(e.what());
    }
}

RetryOutcome retry_quarantined(
    const std::string& database_url, std::int64_t id,
    const std::function<Reapplier(const std::string& group)>& reapplier) {
    try {
        pqxx::connection conn(database_url);
        pg::prepare_charge_statements(conn);
        pqxx::work tx(conn);
        const auto entry = pg::find_quarantined(tx, id);
        if (!entry) return {RetryOutcome::Status::not_found, {}};
        if (entry->resolved_at) return {RetryOutcome::Status::already_resolved, {}};
        const auto error = reapply(tx, *entry, reapplier(entry->record.consumer_group));
        if (error) {
            pg::mark_quarantine_failed(tx, id, *error);
        } else {
            pg::mark_quarantine_resolved(tx, id);
        }
        tx.commit();
        if (error) return {RetryOutcome::Status::failed, *error};
        return {RetryOutcome::Status::resolved, {}};
    } catch (const pqxx::broken_connection& e) {
        throw pg::DatabaseUnavailable(e.what());
    }
}

}  // namespace duepay::projections::quarantine
