// The shared consumer loop (consumer_loop.hpp).
#include "consumers/roles/consumer_loop.hpp"

#include <algorithm>
#include <thread>

#include "infra/config/env.hpp"

namespace duepay::consumers {

void tune_follower_fetch(infra::kafka::ConsumerSettings& settings) {
    settings.fetch_wait_max_ms = static_cast<int>(infra::config::env_int_or(
        "DUEPAY_FOLLOWER_FETCH_WAIT_MS", settings.fetch_wait_max_ms, 0, 60000));
    settings.fetch_min_bytes = static_cast<int>(infra::config::env_int_or(
        "DUEPAY_FOLLOWER_FETCH_MIN_BYTES", settings.fetch_min_bytes, 1, 100'000'000));
}

infra::kafka::OffsetLookup stored_offsets(infra::postgres::TransactionRunner& db,
                                          const std::string& group_id) {
    return [&db, group_id](const std::string& topic, const std::vector<std::int32_t>& partitions) {
        return db.next_offsets(group_id, topic, partitions);
    };
}

void run_consumer_loop(const ConsumerLoop& loop, infra::kafka::KafkaConsumer& consumer,
                       infra::postgres::TransactionRunner& db, const std::atomic<bool>& stop) {
    while (!stop) {
        auto batch =
            consumer.poll_batch(loop.batch_max, std::chrono::milliseconds(loop.poll_timeout_ms));
        if (batch.empty()) continue;
        try {
            db.in_transaction([&](infra::postgres::Transaction& tx) { loop.apply(tx, batch); });
            loop.on_committed();
            continue;
        } catch (const std::exception& e) {
            // Nothing of the batch is durable: wait until Postgres answers again, then re-read
            // the batch from the stored offsets (never skip it).
            loop.log.warn() << loop.name
                            << ": batch failed, retrying from stored offsets: " << e.what();
            loop.on_failure();
        }
        bool answered = false;
        for (int backoff_ms = 200; !stop; backoff_ms = std::min(backoff_ms * 2, 5000)) {
            std::this_thread::sleep_for(std::chrono::milliseconds(backoff_ms));
            try {
                db.probe();
                answered = true;
                break;
            } catch (const std::exception& again) {
                loop.log.warn() << loop.name << ": database still unavailable: " << again.what();
            }
        }
        if (!answered) break;
        loop.on_recovery();
        consumer.rewind_to_stored();
    }
    consumer.close();
}

}  // namespace duepay::consumers
