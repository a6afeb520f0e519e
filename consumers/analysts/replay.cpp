#include "consumers/analysts/replay.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <ctime>
#include <iostream>
#include <pqxx/pqxx>

#include "consumers/analysts/progress.hpp"
#include "consumers/analysts/replay_rebuild.hpp"
#include "consumers/cli/admin.hpp"
#include "domain/events/json_writer.hpp"
#include "infra/config/env.hpp"
#include "infra/kafka/topic_reader.hpp"
#include "infra/log/log.hpp"
#include "projections/charges/read_model_schema.hpp"

namespace duepay::consumers {
namespace {

namespace rm = projections::charges;
constexpr infra::log::Logger kLog{"replay"};
using replay::Offsets;
using replay::stored_offsets;

// "20261123t153000": the retired schema's suffix.
std::string utc_stamp() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%dt%H%M%S", &tm);
    return buf;
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

// Per partition the smaller of the two positions: what both sides have seen.
Offsets min_offsets(const std::vector<std::int32_t>& partitions, const Offsets& a,
                    const Offsets& b) {
    Offsets out;
    for (const auto p : partitions) {
        const auto x = a.contains(p) ? a.at(p) : 0;
        const auto y = b.contains(p) ? b.at(p) : 0;
        out[p] = std::min(x, y);
    }
    return out;
}

int drop_retired(pqxx::connection& conn, domain::json::Writer& w) {
    pqxx::work tx(conn);
    const auto schemas = rm::retired_schemas(tx);
    for (const auto& schema : schemas) {
        tx.exec("drop schema " + conn.quote_name(schema) + " cascade");
    }
    tx.commit();
    w.Key("droppedSchemas");
    w.StartArray();
    for (const auto& s : schemas) w.String(s.c_str());
    w.EndArray();
    return 0;
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
    pqxx::connection conn(s.database_url);
    if (s.drop_old && !s.swap) {
        drop_retired(conn, w);
        w.EndObject();
        std::cout << out.GetString() << std::endl;
        return 0;
    }
    const auto group = replay::group(s.schema);
    {
        pqxx::work tx(conn);
        if (s.fresh) {
            rm::drop_shadow(tx, s.schema);
            tx.exec_params("delete from consumer_offsets where group_id = $1", group);
        }
        rm::create_shadow(tx, s.schema, s.unlogged);
        if (rm::unlogged_shadow_lost(tx, s.schema)) {
            // A Postgres crash emptied the unlogged tables, not the offsets (ADR 0190).
            kLog.warn() << "replay: the unlogged tables of " << s.schema
                        << " were emptied by a Postgres crash; starting again from offset 0";
            rm::drop_shadow(tx, s.schema);
            tx.exec_params("delete from consumer_offsets where group_id = $1", group);
            rm::create_shadow(tx, s.schema, s.unlogged);
        }
        tx.commit();
    }
    auto shadow = replay::shadow_connection(s);

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
    {
        pqxx::read_transaction tx(conn);
        for (const auto& [p, next] : stored_offsets(tx, group, s.topic, reader.partitions())) {
            done_before += std::min(next, ends[p]) - lows[p];
        }
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
    {
        pqxx::work tx(conn);
        rm::make_shadow_logged(tx, s.schema);
        tx.commit();
    }
    const auto logged = std::chrono::steady_clock::now();
    if (const int built = replay::build_deferred_indexes(s); built > 0) {
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
    w.Int64(seconds > 0 ? static_cast<std::int64_t>(rebuild.applied() / seconds) : 0);

    rm::Comparison comparison;
    bool equal = false;
    if (!s.swap) {
        pqxx::read_transaction tx(conn);
        const auto live = stored_offsets(tx, s.live_group, s.topic, reader.partitions());
        const auto mine = stored_offsets(tx, group, s.topic, reader.partitions());
        const auto compare_start = std::chrono::steady_clock::now();
        comparison = rm::compare_with_live(tx, s.schema, s.topic,
                                           min_offsets(reader.partitions(), live, mine));
        write_seconds(w, "compareSeconds", compare_start);
        write_comparison(w, comparison);
        equal = comparison.equal();
        w.Key("swapped");
        w.Bool(false);
    } else {
        // First catch up, unlocked, to where the live projector is now, so the locked
        // transaction below only applies what it commits meanwhile.
        Offsets live_now;
        {
            pqxx::read_transaction tx(conn);
            live_now = stored_offsets(tx, s.live_group, s.topic, reader.partitions());
        }
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
        Offsets compared;
        bool shadow_at_compared = false;  // the shadow stood exactly at `compared`
        const auto compare_start = std::chrono::steady_clock::now();
        {
            pqxx::read_transaction tx(conn);
            const auto live = stored_offsets(tx, s.live_group, s.topic, reader.partitions());
            const auto mine = stored_offsets(tx, group, s.topic, reader.partitions());
            compared = min_offsets(reader.partitions(), live, mine);
            shadow_at_compared = compared == min_offsets(reader.partitions(), mine, mine);
            comparison = rm::compare_with_live(tx, s.schema, s.topic, compared);
        }
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
            pqxx::work tx(*shadow);
            rm::lock_live(tx, s.lock_timeout_ms);
            const auto locked_at = std::chrono::steady_clock::now();
            auto live = stored_offsets(tx, s.live_group, s.topic, reader.partitions());
            Offsets targets;
            for (const auto p : reader.partitions()) {
                targets[p] = live.contains(p) ? live[p] : 0;
            }
            // When the shadow stood at `compared`, every event from there on, on either side,
            // is one of the records read here (the live journal ends at `targets`): only their
            // charges are read again. Otherwise (a live group behind the shadow) both journals
            // are scanned from `compared`.
            const auto touched = rebuild.run_in(tx, targets, stop);
            const auto mine = stored_offsets(tx, group, s.topic, reader.partitions());
            const auto recheck = rm::compare_with_live(
                tx, s.schema, s.topic, min_offsets(reader.partitions(), live, mine), &compared,
                shadow_at_compared ? &touched : nullptr);
            write_comparison(w, recheck, "lockedComparison");
            equal = equal && recheck.equal();
            if (recheck.equal() || s.force) {
                tx.exec_params("delete from public.consumer_offsets where group_id = $1", group);
                const auto retired = rm::swap_in(tx, s.schema, utc_stamp());
                tx.commit();
                // How long the live projector's writes waited on the swap (reads never did).
                write_seconds(w, "lockedSeconds", locked_at);
                w.Key("swapped");
                w.Bool(true);
                domain::json::str(w, "retiredSchema", retired);
                kLog.info() << "replay: swapped in; the old tables are in schema " << retired
                            << " until duepay replay --drop-old";
                if (s.drop_old) drop_retired(conn, w);
            } else {
                tx.abort();
                write_seconds(w, "lockedSeconds", locked_at);
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
