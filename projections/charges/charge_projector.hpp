// Applies a batch of consumed charge events to Postgres in ONE transaction: journal the events
// (charge_events, once per event id), re-fold each touched charge from its journal (a charge the
// batch journals first: from the batch, ADR 0186; a replay: fold the new events into its
// ChargeMemory), upsert its `charges` row, insert the settlement rows its events add
// (`settlement_lines`, ADR 0240; kept when already there), store each partition's
// next offset, and NOTIFY the touched invoice ids (delivered at commit, so the API only hears of
// rows that exist).
//
// No event can stall the projector (ADR 0043): an undecodable record, or one whose data Postgres
// refuses (SQLSTATE class 22/23/54), is quarantined (infra/postgres/quarantine_store.hpp) in the
// same transaction as the offsets, and the rest of the batch is applied. The batch runs in a
// savepoint; if an event-level error aborts it, the batch is re-applied one event per savepoint so
// only the bad event is quarantined. Infrastructure errors (connection lost, serialization failure)
// propagate: the caller retries the whole batch from the stored offsets.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "domain/events/upcast.hpp"
#include "infra/kafka/kafka_consumer.hpp"
#include "infra/postgres/transaction_runner.hpp"
#include "projections/charges/charge_memory.hpp"

namespace duepay::projections::charges {

struct BatchStats {
    std::size_t messages = 0;
    std::size_t new_events = 0;  // journaled now (not seen before)
    std::size_t duplicates = 0;  // event id already journaled
    std::size_t quarantined =
        0;                    // could not be applied: stored in quarantined_events (offset moves)
    std::size_t charges = 0;  // rows upserted
    // Per event type (undecodable records: "undecodable"): applied, and quarantined. Counted into
    // duepay_events_processed_total / duepay_events_failed_total once the batch commits.
    std::map<std::string, std::size_t> applied_by_type;
    std::map<std::string, std::size_t> failed_by_type;
};

struct ApplyOptions {
    // NOTIFY the touched invoice ids (the live projector: the API and the checkout listen). A
    // replay into a fresh schema (duepay replay) has no listeners and skips it.
    bool notify = true;
    // Fold the touched charges in this memory (duepay replay: it reads each partition in order
    // from its start) instead of re-reading and re-decoding their journal. Same fold, same rows.
    ChargeMemory* memory = nullptr;
    // With `memory`, and only when this consumer alone writes the tables (duepay replay into its
    // own schema): the journal rows go by COPY (an INSERT ... ON CONFLICT when an event id is
    // already journaled) and the rows of charges new to the table by COPY (ADR 0200).
    bool bulk = false;
    // The event versions the records are read with (domain/events/upcast.hpp): null is this
    // build's table; a test replays a topic holding a version this build does not write yet.
    const domain::events::SchemaVersions* versions = nullptr;
};

BatchStats apply_batch(pqxx::work& tx, const std::string& group_id,
                       const std::vector<infra::kafka::ConsumedMessage>& batch,
                       ApplyOptions options = {});
// The same in the consumer loop's transaction (consumers/roles/consumer_loop.hpp).
BatchStats apply_batch(infra::postgres::Transaction& tx, const std::string& group_id,
                       const std::vector<infra::kafka::ConsumedMessage>& batch,
                       ApplyOptions options = {});

// Re-applies one stored record (a quarantine retry) through the same code, in a savepoint of `tx`:
// nullopt when applied, else the event-level error (nothing of it is kept). Offsets are untouched.
// Infrastructure errors propagate.
std::optional<std::string> reapply_message(pqxx::work& tx,
                                           const infra::kafka::ConsumedMessage& message);

}  // namespace duepay::projections::charges
