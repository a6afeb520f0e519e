// The replay's loop over one snapshot of the topic (duepay replay, replay.cpp): applies [stored
// offset, end) of every partition in batches with the projector's apply_batch, one transaction
// each (rows and offsets together), into the shadow schema. ADR 0120, 0184, 0190.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "consumers/analysts/progress.hpp"
#include "consumers/analysts/replay.hpp"
#include "infra/kafka/kafka_consumer.hpp"
#include "infra/kafka/topic_reader.hpp"
#include "infra/postgres/transaction_runner.hpp"
#include "projections/charges/charge_memory.hpp"
#include "projections/charges/replay_database.hpp"

namespace duepay::consumers::replay {

using projections::charges::Offsets;

// "duepay-replay-<schema>": the replay's consumer group (its offsets in consumer_offsets).
std::string group(const std::string& schema);

// Unlocked it runs `workers` threads, each with its own connection and reader over its share of
// the partitions (a charge's events share one partition, so workers never touch the same rows);
// inside the swap's transaction it runs on that transaction alone.
class Rebuild {
  public:
    // `shadow`: a shadow runner (projections::charges::shadow_runner; reads the stored offsets);
    // `lows`: the partitions' first offsets, where a partition without stored offsets starts.
    Rebuild(const ReplaySettings& s, infra::postgres::TransactionRunner& shadow,
            infra::kafka::TopicReader& reader, Offsets lows);

    // Up to `ends`; returns false if stopped (what is committed stays: a rerun resumes).
    bool run_parallel(const Offsets& ends, const std::atomic<bool>& stop, Progress* progress,
                      std::int64_t done_before);

    // Inside the swap's transaction, on the main connection and reader. Returns the keys (the
    // invoice ids) of the records it read.
    std::vector<std::string> run_in(infra::postgres::Transaction& tx, const Offsets& ends,
                                    const std::atomic<bool>& stop);

    std::int64_t applied() const { return applied_; }

  private:
    struct Worker {
        std::unique_ptr<projections::charges::ChargeMemory> memory;
        std::unique_ptr<infra::postgres::TransactionRunner> db;
        std::unique_ptr<infra::kafka::TopicReader> reader;
    };
    using Apply = std::function<void(const std::vector<infra::kafka::ConsumedMessage>&)>;

    Offsets stored(infra::postgres::Transaction* in_tx = nullptr);
    std::vector<infra::kafka::PartitionRange> ranges(const Offsets& begins, const Offsets& ends,
                                                     const std::vector<std::int32_t>& partitions);
    bool shadow_journal_empty();
    void apply(infra::postgres::Transaction& tx,
               const std::vector<infra::kafka::ConsumedMessage>& batch,
               projections::charges::ChargeMemory& memory);
    void drain(infra::kafka::TopicReader& reader,
               const std::vector<infra::kafka::PartitionRange>& ranges,
               const std::atomic<bool>& stop, const std::atomic<bool>& failed,
               const Apply& apply_one);

    const ReplaySettings& s_;
    infra::postgres::TransactionRunner& shadow_;
    infra::kafka::TopicReader& reader_;
    std::string group_;
    Offsets lows_;
    std::vector<Worker> workers_;
    // The swap's catch-up: the workers have journaled, so it loads the charges it meets.
    projections::charges::ChargeMemory in_tx_memory_{false};
    std::atomic<std::int64_t> applied_{0};
};

}  // namespace duepay::consumers::replay
