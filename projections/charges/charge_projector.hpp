// Applies a batch of consumed charge events to Postgres in ONE transaction: journal the events
// (charge_events, once per event id), re-fold each touched charge from its journal, upsert its
// `charges` row, store each partition's next offset, and NOTIFY the touched invoice ids (delivered
// at commit, so the API only hears of rows that exist).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <pqxx/pqxx>

#include "infra/kafka/kafka_consumer.hpp"

namespace duepay::projections::charges {

struct BatchStats {
    std::size_t messages = 0;
    std::size_t new_events = 0;   // journaled now (not seen before)
    std::size_t duplicates = 0;   // event id already journaled
    std::size_t malformed = 0;    // undecodable values: logged and skipped (offset still moves)
    std::size_t charges = 0;      // rows upserted
};

BatchStats apply_batch(pqxx::work& tx, const std::string& group_id,
                       const std::vector<infra::kafka::ConsumedMessage>& batch);

}  // namespace duepay::projections::charges
