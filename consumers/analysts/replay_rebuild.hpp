// The replay's loop over one snapshot of the topic (duepay replay, replay.cpp): applies [stored
// offset, end) of every partition in batches with the projector's apply_batch, one transaction
// each (rows and offsets together), into the shadow schema. ADR 0120, 0184, 0190.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "consumers/analysts/progress.hpp"
#include "consumers/analysts/replay.hpp"
#include "infra/kafka/kafka_consumer.hpp"
#include "infra/kafka/topic_reader.hpp"
#include "projections/charges/charge_memory.hpp"

namespace duepay::consumers::replay {

using Offsets = std::map<std::int32_t, std::int64_t>;

// "duepay-replay-<schema>": the replay's consumer group (its offsets in consumer_offsets).
std::string group(const std::string& schema);

Offsets stored_offsets(pqxx::transaction_base& tx, const std::string& group,
                       const std::string& topic, const std::vector<std::int32_t>& partitions);

// A connection whose unqualified names (the projector's SQL) mean the shadow tables first, then
// public for consumer_offsets and quarantined_events.
std::unique_ptr<pqxx::connection> shadow_connection(const ReplaySettings& s);

// Builds the shadow's deferred indexes (rm::deferred_index_statements) once it is loaded,
// `s.workers` at a time, each on a connection and in a transaction of its own; returns how many.
int build_deferred_indexes(const ReplaySettings& s);

// Unlocked it runs `workers` threads, each with its own connection and reader over its share of
// the partitions (a charge's events share one partition, so workers never touch the same rows);
// inside the swap's transaction it runs on that transaction alone.
class Rebuild {
  public:
    // `conn`: a shadow connection (reads the stored offsets); `lows`: the partitions' first
    // offsets, where a partition without stored offsets starts.
    Rebuild(const ReplaySettings& s, pqxx::connection& conn, infra::kafka::TopicReader& reader,
            Offsets lows);

    // Up to `ends`; returns false if stopped (what is committed stays: a rerun resumes).
    bool run_parallel(const Offsets& ends, const std::atomic<bool>& stop, Progress* progress,
                      std::int64_t done_before);

    // Inside the swap's transaction, on the main connection and reader. Returns the keys (the
    // invoice ids) of the records it read.
    std::vector<std::string> run_in(pqxx::work& tx, const Offsets& ends,
                                    const std::atomic<bool>& stop);

    std::int64_t applied() const { return applied_; }

  private:
    struct Worker {
        std::unique_ptr<projections::charges::ChargeMemory> memory;
        std::unique_ptr<pqxx::connection> conn;
        std::unique_ptr<infra::kafka::TopicReader> reader;
    };
    using Apply = std::function<void(const std::vector<infra::kafka::ConsumedMessage>&)>;

    Offsets stored(pqxx::work* in_tx = nullptr);
    std::vector<infra::kafka::PartitionRange> ranges(const Offsets& begins, const Offsets& ends,
                                                     const std::vector<std::int32_t>& partitions);
    bool shadow_journal_empty();
    void apply(pqxx::work& tx, const std::vector<infra::kafka::ConsumedMessage>& batch,
               projections::charges::ChargeMemory& memory);
    void drain(infra::kafka::TopicReader& reader,
               const std::vector<infra::kafka::PartitionRange>& ranges,
               const std::atomic<bool>& stop, const std::atomic<bool>& failed,
               const Apply& apply_one);

    const ReplaySettings& s_;
    pqxx::connection& conn_;
    infra::kafka::TopicReader& reader_;
    std::string group_;
    Offsets lows_;
    std::vector<Worker> workers_;
    // The swap's catch-up: the workers have journaled, so it loads the charges it meets.
    projections::charges::ChargeMemory in_tx_memory_{false};
    std::atomic<std::int64_t> applied_{0};
};

}  // namespace duepay::consumers::replay
