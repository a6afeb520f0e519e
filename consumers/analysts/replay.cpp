#include "consumers/analysts/replay.hpp"

#include <CLI/CLI.hpp>
#include <array>
#include <chrono>
#include <ctime>
#include <iostream>

#include "consumers/analysts/progress.hpp"
#include "consumers/analysts/replay_rebuild.hpp"
#include "consumers/cli/admin.hpp"
#include "domain/events/json_writer.hpp"
#include "infra/config/env.hpp"
#include "infra/kafka/topic_reader.hpp"
#include "infra/log/log.hpp"
#include "projections/charges/replay_database.hpp"

namespace duepay::consumers {
namespace {

namespace rm = projections::charges;
constexpr infra::log::Logger kLog{"replay"};
using replay::Offsets;

// "20261123t153000": the retired schema's suffix.
std::string utc_stamp() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    std::array<char, 32> buf{};
    std::strftime(buf.data(), buf.size(), "%Y%m%dt%H%M%S", &tm);
    return buf.data();
}

void write_seconds(domain::json::Writer& w, const char* key,
                   std::chrono::steady_clock::time_point since) {
    w.Key(key);
    w.Double(std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count());
}

void write_comparison(domain::json::Writer& w, const rm::Comparison& c,
                      const char* key = "comparison") {
    w.Key(key);
    w.StartObject();
    w.Key("equal");
    w.Bool(c.equal());
    w.Key("charges");
    w.Int64(c.charges);
    w.Key("mismatches");
    w.Int64(c.mismatches);
    w.Key("journalMissing");
    w.Int64(c.journal_missing);
    w.Key("journalExtra");
    w.Int64(c.journal_extra);
    w.Key("examples");
    w.StartArray();
    for (const auto& e : c.examples) w.String(e.c_str());
    w.EndArray();
    w.EndObject();
}

void drop_retired(rm::ReplayDatabase& db, domain::json::Writer& w) {
    const auto schemas = db.drop_retired();
    w.Key("droppedSchemas");
    w.StartArray();
    for (const auto& s : schemas) w.String(s.c_str());
    w.EndArray();
}

}  // namespace

int run_replay(const ReplaySettings& s, const std::atomic<bool>& stop) {
    if (!rm::is_valid_shadow_schema(s.schema)) {
        print_admin_error("invalid_schema",
                          "--schema must be a lower-case identifier other than public, pg_* and "
                          "duepay_retired_*");
        return 2;
    }
    rapidjson::StringBuffer out;
    domain::json::Writer w(out);
    w.StartObject();
    rm::ReplayDatabase db(s.database_url);
    if (s.drop_old && !s.swap) {
        drop_retired(db, w);
        w.EndObject();
        std::cout << out.GetString() << std::endl;
        return 0;
    }
    const auto group = replay::group(s.schema);
    if (db.prepare_shadow(s.schema, group, s.fresh, s.unlogged)) {
        // A Postgres crash emptied the unlogged tables, not the offsets (ADR 0190).
        kLog.warn() << "replay: the tables of " << s.schema
                    << " were emptied by a Postgres crash, or lack one this build rebuilds; "
                       "starting again from offset 0";
    }
    auto shadow = rm::shadow_runner(s.database_url, s.schema);

    infra::kafka::TopicReader reader(s.bootstrap, s.topic, "duepay-replay");
    Offsets lows;
    Offsets ends;
    std::int64_t total = 0;
    for (const auto& [p, mark] : reader.watermarks()) {
        lows[p] = mark.first;
        ends[p] = mark.second;
        total += mark.second - mark.first;
    }
    replay::Rebuild rebuild(s, *shadow, reader, lows);
    std::int64_t done_before = 0;
    for (const auto& [p, next] : db.stored_offsets(group, s.topic, reader.partitions())) {
        done_before += std::min(next, ends[p]) - lows[p];
    }
    kLog.info() << "replay: " << s.topic << " -> schema " << s.schema << " (group " << group
                << "), " << with_commas(total) << " events, "
                << (done_before > 0 ? "resuming at " + with_commas(done_before) : "from offset 0");
    Progress progress("replay", total, Progress::stderr_is_tty(), std::cerr);
    const auto started = std::chrono::steady_clock::now();
    if (!rebuild.run_parallel(ends, stop, &progress, done_before)) {
        progress.finish(done_before + rebuild.applied());
        kLog.info() << "replay: stopped; run it again to resume";
        return 130;
    }
    progress.finish(done_before + rebuild.applied());
    // Durable before any compare or swap (ADR 0190), then the list indexes of `charges`, left
    // out while loading (ADR 0185).
    const auto loaded = std::chrono::steady_clock::now();
    db.make_shadow_logged(s.schema);
    const auto logged = std::chrono::steady_clock::now();
    if (const int built = rm::build_deferred_indexes(s.database_url, s.schema, s.workers);
        built > 0) {
        kLog.info() << "replay: built " << built << " indexes of " << s.schema << ", "
                    << std::min<std::size_t>(s.workers, built) << " at a time";
    }
    const auto indexed = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(indexed - started).count();
    domain::json::str(w, "schema", s.schema);
    domain::json::str(w, "topic", s.topic);
    w.Key("events");
    w.Int64(total);
    w.Key("applied");
    w.Int64(rebuild.applied());
    w.Key("seconds");
    w.Double(seconds);
    w.Key("loggedSeconds");
    w.Double(std::chrono::duration<double>(logged - loaded).count());
    w.Key("indexSeconds");
    w.Double(std::chrono::duration<double>(indexed - logged).count());
    w.Key("eventsPerSecond");
    w.Int64(seconds > 0
                ? static_cast<std::int64_t>(static_cast<double>(rebuild.applied()) / seconds)
                : 0);

    rm::Comparison comparison;
    bool equal = false;
    if (!s.swap) {
        const auto compare_start = std::chrono::steady_clock::now();
        comparison =
            db.compare(s.schema, s.topic, s.live_group, group, reader.partitions()).comparison;
        write_seconds(w, "compareSeconds", compare_start);
        write_comparison(w, comparison);
        equal = comparison.equal();
        w.Key("swapped");
        w.Bool(false);
    } else {
        // First catch up, unlocked, to where the live projector is now, so the locked
        // transaction below only applies what it commits meanwhile.
        auto live_now = db.stored_offsets(s.live_group, s.topic, reader.partitions());
        const auto marks = reader.watermarks();
        Offsets unlocked_targets;
        for (const auto p : reader.partitions()) {
            unlocked_targets[p] =
                live_now.contains(p) ? std::min(live_now[p], marks.at(p).second) : 0;
        }
        if (!rebuild.run_parallel(unlocked_targets, stop, nullptr, 0)) return 130;
        // Compare, unlocked, every charge both sides have seen. Then one transaction: stop the
        // live projector's writes, catch up to its offsets, recheck only what changed since the
        // first comparison, rename: the projector's writes wait for the catch-up, the recheck
        // and the renames, not for a comparison of every charge (ADR 0200). The API reads on
        // throughout (EXCLUSIVE allows reads). On the shadow connection: the catch-up writes
        // through unqualified names.
        const auto compare_start = std::chrono::steady_clock::now();
        const auto first = db.compare(s.schema, s.topic, s.live_group, group, reader.partitions());
        comparison = first.comparison;
        write_seconds(w, "compareSeconds", compare_start);
        write_comparison(w, comparison);
        equal = comparison.equal();
        const auto not_swapped = [&] {
            w.Key("swapped");
            w.Bool(false);
            kLog.warn() << "replay: the rebuilt tables differ from the live ones; not swapped";
        };
        if (!equal && !s.force) {
            not_swapped();
        } else {
            rm::SwapRequest request;
            request.schema = s.schema;
            request.topic = s.topic;
            request.live_group = s.live_group;
            request.group = group;
            request.partitions = reader.partitions();
            request.lock_timeout_ms = s.lock_timeout_ms;
            request.compared = first.compared;
            request.shadow_at_compared = first.shadow_at_compared;
            request.force = s.force;
            request.suffix = utc_stamp();
            rm::LockedSwap swap;
            // On the shadow runner: the catch-up writes through unqualified names.
            shadow->in_transaction([&](infra::postgres::Transaction& tx) {
                swap = rm::swap_locked(
                    tx, request, [&](infra::postgres::Transaction& in_tx, const Offsets& targets) {
                        return rebuild.run_in(in_tx, targets, stop);
                    });
            });
            write_comparison(w, swap.recheck, "lockedComparison");
            equal = equal && swap.recheck.equal();
            // How long the live projector's writes waited on the swap (reads never did).
            write_seconds(w, "lockedSeconds", swap.locked_at);
            if (swap.swapped) {
                w.Key("swapped");
                w.Bool(true);
                domain::json::str(w, "retiredSchema", swap.retired_schema);
                kLog.info() << "replay: swapped in; the old tables are in schema "
                            << swap.retired_schema << " until duepay replay --drop-old";
                if (s.drop_old) drop_retired(db, w);
            } else {
                not_swapped();
            }
        }
    }
    w.EndObject();
    std::cout << out.GetString() << std::endl;
    return equal ? 0 : 1;
}

cli::Run define_replay(CLI::App& cmd) {
    auto s = std::make_shared<ReplaySettings>();
    cmd.add_option("--topic", s->topic, "event topic (DUEPAY_TOPIC)");
    cmd.add_option("--schema", s->schema, "the shadow schema to build into (duepay_replay)");
    cmd.add_option("--live-group", s->live_group,
                   "the live projector's group (DUEPAY_PROJECTOR_GROUP, duepay-projector)");
    cmd.add_option("--batch", s->batch, "events per transaction (20000)");
    cmd.add_option(
        "--workers", s->workers,
        "parallel writers, each with its own connection and share of the partitions (2)");
    cmd.add_flag("--fresh", s->fresh, "drop the shadow schema and its offsets first");
    cmd.add_flag("--unlogged", s->unlogged,
                 "load the shadow tables UNLOGGED (no WAL) and make them logged before the "
                 "comparison (default: logged; slower on the quiet 1M bench, ADR 0190)");
    cmd.add_flag("--swap", s->swap,
                 "swap the rebuilt tables in when they equal the live ones (old set kept)");
    cmd.add_flag("--drop-old", s->drop_old,
                 "drop the retired tables of earlier swaps (alone: does only that)");
    cmd.add_flag("--force", s->force, "with --swap: swap even when the comparison differs");
    cmd.footer("Resumable: run it again after a crash or a stop. docs/analysts.md, ADR 0120.");
    return [s](const std::atomic<bool>& stop) {
        auto settings = *s;
        settings.bootstrap = infra::config::require_env("KAFKA_BOOTSTRAP");
        settings.database_url = infra::config::require_env("DATABASE_URL");
        if (settings.topic.empty()) {
            settings.topic = infra::config::env_or("DUEPAY_TOPIC", "duepay.charge-events.v1");
        }
        if (settings.live_group.empty()) {
            settings.live_group =
                infra::config::env_or("DUEPAY_PROJECTOR_GROUP", "duepay-projector");
        }
        return run_replay(settings, stop);
    };
}

}  // namespace duepay::consumers
