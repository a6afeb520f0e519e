// The webhooks role's enqueue (docs/webhooks.md, ADR 0100): journal each charge event, re-fold the
// touched charges with domain/charge and, for each status change, store the webhook event and one
// delivery per subscribed endpoint, in the transaction the caller also stores its offsets in (a
// crash never loses or doubles an enqueue). The loop around it is consumers/roles
// (webhook_enqueuer.cpp); moved here from there so consumers/ holds no SQL (ADR 0205).
#pragma once

#include <cstddef>
#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "infra/kafka/kafka_consumer.hpp"
#include "infra/postgres/transaction_runner.hpp"

namespace duepay::projections::webhooks {

struct EnqueueStats {
    std::size_t messages = 0;
    std::size_t new_events = 0;
    std::size_t webhook_events = 0;
    std::size_t deliveries = 0;
};

// One consumed batch of group `group_id`: journal, re-fold, enqueue; records that cannot be decoded
// are quarantined (ADR 0043: recorded with their raw bytes, the offset moves on); the batch's next
// offsets are stored. The caller commits.
EnqueueStats enqueue_batch(infra::postgres::Transaction& tx, const std::string& group_id,
                           const std::vector<infra::kafka::ConsumedMessage>& batch);

// What `duepay admin quarantine retry` runs for a webhooks group: the message applied as the
// enqueuer does (journal, re-fold, enqueue; offsets untouched, nothing quarantined). nullopt when
// it applied, else why not.
std::optional<std::string> reapply_webhook_message(pqxx::work& tx,
                                                   const infra::kafka::ConsumedMessage& message);

}  // namespace duepay::projections::webhooks
