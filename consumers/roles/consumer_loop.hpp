// The one loop of the roles that consume the event topic into Postgres (the projector, the
// webhooks role's enqueuer): poll a batch, apply it with its offsets in one transaction, and on
// any failure of the world keep nothing of the batch: back off (200 ms doubling to 5 s) until
// Postgres answers a probe, then rewind the consumer to the stored offsets and read the batch
// again, never skipping it. What a batch means is the caller's `apply`; records it cannot decode
// are the caller's to quarantine inside the same transaction.
//
// The database is a `TransactionRunner` (infra/postgres/transaction_runner.hpp, ADR 0205): its
// connection is opened on first use (the offset lookup of the first assignment, or the first
// batch), so a role started while Postgres is down waits for it instead of failing (ADR 0044).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "infra/kafka/kafka_consumer.hpp"
#include "infra/log/log.hpp"
#include "infra/postgres/transaction_runner.hpp"

namespace duepay::consumers {

struct ConsumerLoop {
    ConsumerLoop(infra::log::Logger logger, std::string role, std::string group,
                 std::size_t max_batch, int poll_ms)
        : log(logger),
          name(std::move(role)),
          group_id(std::move(group)),
          batch_max(max_batch),
          poll_timeout_ms(poll_ms) {}

    infra::log::Logger log;
    std::string name;  // in log lines: "projector", "webhooks"
    std::string group_id;
    std::size_t batch_max = 1000;
    int poll_timeout_ms = 200;
    // Applies one batch in `tx`, its offsets included; the loop commits. Throws on failure.
    std::function<void(infra::postgres::Transaction& tx,
                       const std::vector<infra::kafka::ConsumedMessage>&)>
        apply;
    // Told once a batch's transaction has committed.
    std::function<void()> on_committed = [] {};
    // Told of a failed batch (rolled back) and, once a probe answers again, of the recovery.
    std::function<void()> on_failure = [] {};
    std::function<void()> on_recovery = [] {};
};

// The stored-offsets lookup of a consumer's assignment, over `db`: a stale connection (Postgres
// restarted) is replaced once; if the database is still away it throws and the consumer holds
// the partitions until a later poll. Runs inside poll on the loop's thread.
infra::kafka::OffsetLookup stored_offsets(infra::postgres::TransactionRunner& db,
                                          const std::string& group_id);

// The fetch of a consumer that no request waits on (the webhooks role's enqueuer, chainwatch; the
// projector has knobs of its own, since a create waits for it): DUEPAY_FOLLOWER_FETCH_WAIT_MS
// (fetch.wait.max.ms, default 100, 0..60000) and DUEPAY_FOLLOWER_FETCH_MIN_BYTES (fetch.min.bytes,
// default 1, 1..100000000). The defaults hand each record over at once; a larger minimum makes
// these roles fetch and commit in batches at low rates, each record up to the wait later
// (docs/tuning.md). Throws infra::config::ConfigError on a value out of range.
void tune_follower_fetch(infra::kafka::ConsumerSettings& settings);

// Runs `loop` over `consumer` until `stop`; closes the consumer at the end.
void run_consumer_loop(const ConsumerLoop& loop, infra::kafka::KafkaConsumer& consumer,
                       infra::postgres::TransactionRunner& db, const std::atomic<bool>& stop);

}  // namespace duepay::consumers
