// The database side of `duepay replay` (consumers/analysts/replay.cpp, ADR 0120, 0185, 0190,
// 0200): the shadow schema's life (create, resume or start again, make logged, deferred indexes,
// retire), the offsets and comparisons read on the main connection, the shadow's own connections
// (unqualified names mean the shadow tables first), and the locked swap's transaction. The
// command keeps the order of the steps, the workers and the report; the SQL stays here and in
// read_model_schema (ADR 0205). Throws what Postgres throws.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "infra/postgres/transaction_runner.hpp"
#include "projections/charges/read_model_schema.hpp"

namespace duepay::projections::charges {

using Offsets = std::map<std::int32_t, std::int64_t>;

// A runner on a connection of its own to the shadow `schema`: unqualified names (the projector's
// SQL) mean the shadow tables first, then public for consumer_offsets and quarantined_events; the
// charge statements are prepared, work_mem is raised so a batch's column arrays stay in memory
// (ADR 0190).
std::unique_ptr<infra::postgres::TransactionRunner> shadow_runner(const std::string& database_url,
                                                                  const std::string& schema);

// In a shadow transaction: true while the shadow journal holds no event.
bool shadow_journal_empty(infra::postgres::Transaction& tx);

// Builds the shadow's deferred indexes once it is loaded, `workers` at a time, each on a
// connection and in a transaction of its own; returns how many.
int build_deferred_indexes(const std::string& database_url, const std::string& schema,
                           std::size_t workers);

// The main connection of a replay, opened by the constructor; each call is one transaction.
class ReplayDatabase {
  public:
    explicit ReplayDatabase(const std::string& database_url);
    ~ReplayDatabase();
    ReplayDatabase(const ReplayDatabase&) = delete;
    ReplayDatabase& operator=(const ReplayDatabase&) = delete;

    // Drops the retired schemas of earlier swaps; returns their names.
    std::vector<std::string> drop_retired();

    // Creates the shadow `schema` unless it exists (`fresh`: drops it and the offsets of `group`
    // first). Returns true when an unlogged shadow had been emptied by a Postgres crash (its
    // offsets had not), or lacked one of the rebuilt tables (an older build's), and was started
    // again from offset 0 (ADR 0190, 0245).
    bool prepare_shadow(const std::string& schema, const std::string& group, bool fresh,
                        bool unlogged);

    Offsets stored_offsets(const std::string& group, const std::string& topic,
                           const std::vector<std::int32_t>& partitions);

    // Makes an unlogged shadow's tables logged (durable before any compare or swap).
    void make_shadow_logged(const std::string& schema);

    // Compares the shadow with the live tables over the offsets both groups have seen, in one
    // transaction. `compared`: those offsets; `shadow_at_compared`: the shadow stood exactly
    // there.
    struct Compared {
        Comparison comparison;
        Offsets compared;
        bool shadow_at_compared = false;
    };
    Compared compare(const std::string& schema, const std::string& topic,
                     const std::string& live_group, const std::string& group,
                     const std::vector<std::int32_t>& partitions);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Per partition the smaller of the two positions: what both sides have seen.
Offsets min_offsets(const std::vector<std::int32_t>& partitions, const Offsets& a,
                    const Offsets& b);

// The swap's transaction, on a shadow runner's transaction `tx`: lock the live tables (the live
// projector's writes wait; reads go on), `catch_up` to the live group's offsets (it returns the
// invoice ids it read), recheck what changed since `compared` (only those charges when
// `shadow_at_compared`), and when equal (or `force`) delete the replay group's offsets and swap
// the shadow in under `suffix`; otherwise `tx` is discarded.
struct LockedSwap {
    Comparison recheck;
    bool swapped = false;
    std::string retired_schema;
    std::chrono::steady_clock::time_point locked_at;
};
struct SwapRequest {
    std::string schema;
    std::string topic;
    std::string live_group;
    std::string group;
    std::vector<std::int32_t> partitions;
    int lock_timeout_ms = 10000;
    Offsets compared;
    bool shadow_at_compared = false;
    bool force = false;
    std::string suffix;
};
LockedSwap swap_locked(infra::postgres::Transaction& tx, const SwapRequest& request,
                       const std::function<std::vector<std::string>(infra::postgres::Transaction&,
                                                                    const Offsets&)>& catch_up);

}  // namespace duepay::projections::charges
