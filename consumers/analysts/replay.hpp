// `duepay replay`: rebuilds the charges read model from offset 0 of the topic into a fresh schema
// while the live projector keeps serving, compares it with the live tables over the offsets both
// have seen, and on --swap swaps it in atomically (blue/green; the old tables are kept in a
// duepay_retired_* schema until --drop-old). Resumable: the replay's offsets (consumer group
// "duepay-replay-<schema>") are stored in the same transaction as its rows. Progress bar on a
// terminal, plain lines otherwise; a JSON report on stdout. ADR 0120, docs/analysts.md.
#pragma once

#include <atomic>
#include <string>

#include "consumers/cli/command.hpp"
#include "domain/events/upcast.hpp"

namespace duepay::consumers {

struct ReplaySettings {
    std::string bootstrap;
    std::string database_url;
    std::string topic;
    std::string schema = "duepay_replay";
    std::string live_group;  // the live projector's group (DUEPAY_PROJECTOR_GROUP)
    std::size_t batch = 20000;
    std::size_t workers = 2;  // threads, each with a connection and a share of the partitions
    bool fresh = false;       // drop the shadow schema and its offsets first
    bool unlogged = false;    // load the shadow tables UNLOGGED (opt-in, ADR 0190)
    bool swap = false;        // swap in after an equal comparison
    bool drop_old = false;    // drop the retired schemas (alone: only that)
    bool force = false;       // swap even when the comparison differs
    int lock_timeout_ms = 10000;
    // The event versions records are read with; null: this build's (a test injects its own table;
    // no flag sets it).
    const domain::events::SchemaVersions* versions = nullptr;
};

// Exit codes: 0 done (and equal), 1 the comparison differs (nothing swapped), 2 usage, 130
// stopped by a signal (resumable).
int run_replay(const ReplaySettings& settings, const std::atomic<bool>& stop);

cli::Run define_replay(CLI::App& cmd);

}  // namespace duepay::consumers
