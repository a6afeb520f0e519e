#include "consumers/analysts/replay_rebuild.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "infra/postgres/offset_store.hpp"
#include "projections/charges/charge_projector.hpp"

namespace duepay::consumers::replay {

namespace rm = projections::charges;

namespace {

// Joins every thread, then rethrows the first error one of them left.
void join_and_rethrow(std::vector<std::thread>& threads,
                      const std::vector<std::exception_ptr>& errors) {
    for (auto& t : threads) t.join();
    for (const auto& e : errors) {
        if (e) std::rethrow_exception(e);
    }
}

}  // namespace

std::string group(const std::string& schema) { return "duepay-replay-" + schema; }

Rebuild::Rebuild(const ReplaySettings& s, infra::postgres::TransactionRunner& shadow,
                 infra::kafka::TopicReader& reader, Offsets lows)
    : s_(s), shadow_(shadow), reader_(reader), group_(group(s.schema)), lows_(std::move(lows)) {}

bool Rebuild::run_parallel(const Offsets& ends, const std::atomic<bool>& stop, Progress* progress,
                           std::int64_t done_before) {
    const auto begins = stored();
    const std::size_t n =
        std::max<std::size_t>(1, std::min<std::size_t>(s_.workers, reader_.partitions().size()));
    const bool journal_empty = workers_.empty() && shadow_journal_empty();
    while (workers_.size() < n) {
        Worker w;
        // Each worker alone writes its partitions' charges: from an empty journal, a charge it
        // does not hold has no journaled event yet.
        w.memory = std::make_unique<rm::ChargeMemory>(journal_empty);
        w.db = rm::shadow_runner(s_.database_url, s_.schema);
        w.reader = std::make_unique<infra::kafka::TopicReader>(
            s_.bootstrap, s_.topic, "duepay-replay-" + std::to_string(workers_.size()));
        workers_.push_back(std::move(w));
    }
    std::atomic<bool> failed{false};
    std::vector<std::exception_ptr> errors(n);
    std::vector<std::thread> threads;
    std::atomic<std::size_t> running{n};
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<std::int32_t> mine;
        for (std::size_t j = i; j < reader_.partitions().size(); j += n) {
            mine.push_back(reader_.partitions()[j]);
        }
        threads.emplace_back([&, i, mine] {
            try {
                auto& w = workers_[i];
                drain(*w.reader, ranges(begins, ends, mine), stop, failed, [&](auto& batch) {
                    w.db->in_transaction(
                        [&](infra::postgres::Transaction& tx) { apply(tx, batch, *w.memory); });
                });
            } catch (...) {
                errors[i] = std::current_exception();
                failed = true;
            }
            --running;
        });
    }
    while (running > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (progress != nullptr) progress->update(done_before + applied_);
    }
    join_and_rethrow(threads, errors);
    return !stop;
}

std::vector<std::string> Rebuild::run_in(infra::postgres::Transaction& tx, const Offsets& ends,
                                         const std::atomic<bool>& stop) {
    std::atomic<bool> failed{false};
    std::set<std::string> keys;
    drain(reader_, ranges(stored(&tx), ends, reader_.partitions()), stop, failed, [&](auto& batch) {
        for (const auto& m : batch) keys.insert(m.key);
        apply(tx, batch, in_tx_memory_);
    });
    return {keys.begin(), keys.end()};
}

Offsets Rebuild::stored(infra::postgres::Transaction* in_tx) {
    if (in_tx != nullptr) {
        return infra::postgres::load_next_offsets(*in_tx, group_, s_.topic, reader_.partitions());
    }
    return shadow_.next_offsets(group_, s_.topic, reader_.partitions());
}

std::vector<infra::kafka::PartitionRange> Rebuild::ranges(
    const Offsets& begins, const Offsets& ends, const std::vector<std::int32_t>& partitions) {
    std::vector<infra::kafka::PartitionRange> out;
    for (const auto p : partitions) {
        const auto begin = begins.contains(p) ? begins.at(p) : lows_.at(p);
        out.push_back({p, begin, std::max(begin, ends.at(p))});
    }
    return out;
}

bool Rebuild::shadow_journal_empty() {
    bool empty = false;
    shadow_.in_transaction(
        [&](infra::postgres::Transaction& tx) { empty = rm::shadow_journal_empty(tx); });
    return empty;
}

void Rebuild::apply(infra::postgres::Transaction& tx,
                    const std::vector<infra::kafka::ConsumedMessage>& batch,
                    rm::ChargeMemory& memory) {
    rm::ApplyOptions options;
    options.notify = false;
    options.memory = &memory;
    options.bulk = true;  // the shadow schema is written by this replay alone
    options.versions = s_.versions;
    rm::apply_batch(tx, group_, batch, options);
}

void Rebuild::drain(infra::kafka::TopicReader& reader,
                    const std::vector<infra::kafka::PartitionRange>& ranges,
                    const std::atomic<bool>& stop, const std::atomic<bool>& failed,
                    const Apply& apply_one) {
    reader.assign(ranges);
    while (!reader.done() && !stop && !failed) {
        auto batch = reader.poll(s_.batch, std::chrono::milliseconds(500));
        if (batch.empty()) continue;
        apply_one(batch);
        applied_ += static_cast<std::int64_t>(batch.size());
    }
}

}  // namespace duepay::consumers::replay
