// KafkaConsumer: a group member with manual offsets for the projector (docs/style.md). Offsets are
// not committed to Kafka: the caller stores each partition's next offset in its own database
// transaction, and on every assignment the rebalance callback asks `OffsetLookup` for them and
// assigns with them (no stored offset = the beginning of the partition). If the lookup fails (the
// database is down or the connection stale), the partitions are held unassigned and the lookup is
// retried from poll_batch every 500 ms: never a read from a guessed offset, never an abort.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "infra/kafka/handles.hpp"
#include "infra/metrics/metrics.hpp"

namespace duepay::infra::kafka {

struct ConsumedMessage {
    std::string topic;
    std::int32_t partition = 0;
    std::int64_t offset = 0;
    std::string key;
    std::string value;
};

// partition -> next offset to read, for the partitions of `topic` that have one stored.
using OffsetLookup = std::function<std::map<std::int32_t, std::int64_t>(
    const std::string& topic, const std::vector<std::int32_t>& partitions)>;

struct ConsumerSettings {
    std::string bootstrap;
    std::string group_id;
    std::string topic;
    std::string client_id = "duepay";
    // The broker answers a fetch as soon as it has fetch_min_bytes for us, else after
    // fetch_wait_max_ms. 1 byte: a new record is handed over at once (what a create waits for,
    // ADR 0140); the wait then only bounds an idle long poll.
    int fetch_wait_max_ms = 100;  // 500 measured worse at low rates (ADR 0305)
    int fetch_min_bytes = 1;
    // Readiness fails while the summed lag is above this (DUEPAY_READY_MAX_LAG, read by the role).
    std::int64_t ready_max_lag = 1000;
};

class KafkaConsumer {
  public:
    KafkaConsumer(ConsumerSettings settings, OffsetLookup lookup);
    ~KafkaConsumer();  // close() if not closed yet, then destroy
    KafkaConsumer(const KafkaConsumer&) = delete;
    KafkaConsumer& operator=(const KafkaConsumer&) = delete;

    // Up to `max` messages, waiting at most `timeout` for the first and then taking only what is
    // already buffered. If the assignment changed during the call, messages read before the change
    // are dropped (their partitions restart from the stored offsets), so a batch never mixes
    // generations. Transient broker errors are logged, not thrown.
    std::vector<ConsumedMessage> poll_batch(std::size_t max, std::chrono::milliseconds timeout);

    // Partitions currently assigned.
    std::vector<std::int32_t> assignment() const;

    // Per assigned partition: the high watermark (librdkafka's cached value, refreshed by every
    // fetch) minus the next offset this consumer returns; partitions whose watermark is not
    // known yet are left out. Thread-safe (the ops thread reads it). Exported as
    // duepay_kafka_consumer_lag{group,topic,partition} (ADR 0131).
    std::map<std::int32_t, std::int64_t> lag() const;

    // Readiness (the ops listener's /readyz, check "kafka <group>"): nullopt once an assignment was
    // received and applied (possibly empty: more members than partitions) and the summed lag is at
    // most `max_lag`; else why not. Thread-safe.
    std::optional<std::string> not_ready(std::int64_t max_lag) const;

    // Re-reads the stored offsets for the current assignment and restarts fetching there (after a
    // failed batch: nothing of it was stored, so it is read again) by a seek; drops buffered
    // messages.
    void rewind_to_stored();

    // Leaves the group cleanly (revokes partitions, lets others take over quickly).
    void close();

  private:
    // Assigns `partitions` at their stored offsets; false (and the partitions held in pending_,
    // unassigned) when the lookup threw.
    bool assign_from_stored(rd_kafka_topic_partition_list_t* partitions);
    void retry_pending_assignment();
    static void on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                             rd_kafka_topic_partition_list_t* partitions, void* opaque);

    ConsumerSettings settings_;
    OffsetLookup lookup_;
    detail::KafkaHandle consumer_;
    std::uint64_t generation_ = 0;
    bool closed_ = false;
    detail::PartitionListHandle pending_;  // assigned to us, held until the offset lookup answers
    std::chrono::steady_clock::time_point last_pending_try_{};

    // The next offset to return per assigned partition (-2: the beginning), for lag().
    mutable std::mutex positions_mutex_;
    std::map<std::int32_t, std::int64_t> next_offsets_;
    bool assigned_ = false;  // an assignment was received and applied (under positions_mutex_)
    void set_positions(const rd_kafka_topic_partition_list_t* partitions);

    // Last members: unregistered before the handle above goes.
    metrics::Registration lag_metric_;
    metrics::Registration ready_check_;
};

}  // namespace duepay::infra::kafka
