// duepay replay against the real stack (label integration), in a database of its own (every
// migration applied) so a swap never touches the read model other tests use: `duepay dev` (api +
// projector) serves a fresh topic holding charges created over the API and a synthetic history;
// a replay killed with SIGKILL resumes and rebuilds the same rows; a shadow with one wrong row is
// refused; `replay --swap` swaps while the API answers every read, and the projector and the API
// go on with the swapped-in tables; `--drop-old` drops the retired ones. A charge straddling
// batches, killed between them, resumes to the live row; an unlogged shadow emptied by a Postgres
// crash is rebuilt from offset 0. The fixture: replay_fixture.hpp.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <pqxx/pqxx>
#include <thread>

#include "projections/charges/read_model_schema.hpp"
#include "tests/integration/analysts/replay_fixture.hpp"

namespace duepay::tests {
namespace {

constexpr int kSyntheticCharges = 3000;  // 6,750 events

TEST_F(ReplayTest, ResumesAfterAKillRefusesADifferenceAndSwapsWhileTheApiServes) {
    const auto first = create_charge();
    ASSERT_FALSE(first.empty());
    std::string out;
    ASSERT_EQ(run_command({DUEPAY_PRODUCER, "--topic", server_.topic, "--project", project_,
                           "--charges", std::to_string(kSyntheticCharges)},
                          {}, out, std::chrono::seconds(60)),
              0)
        << out;
    const std::int64_t events = kSyntheticCharges / 4 * 9 + 1;
    pqxx::connection db(url_);
    ASSERT_TRUE(
        wait_until([&] { return count(db, "select count(*) from charge_events") == events; },
                   std::chrono::seconds(60)))
        << server_.process->log();

    // 1. Killed half way (SIGKILL), then run again: it resumes from its stored offsets.
    {
        Process killed(
            {duepay_binary(), "replay", "--schema", "rebuild_a", "--batch", "25", "--unlogged"},
            killed_env(), "/tmp/duepay-replay-killed-" + unique_suffix() + ".log");
        ASSERT_TRUE(wait_until(
            [&] {
                return count(db,
                             "select coalesce(sum(next_offset), 0) from consumer_offsets where "
                             "group_id = 'duepay-replay-rebuild_a'") > events / 3 ||
                       !killed.alive();
            },
            std::chrono::seconds(60)));
        ASSERT_TRUE(killed.alive()) << "finished before the kill: " << killed.log();
        killed.kill_hard();
    }
    wait_for_killed_backends(db);
    const auto partial = count(db, "select count(*) from rebuild_a.charge_events");
    EXPECT_GT(partial, 0);
    EXPECT_LT(partial, events);
    // Loading UNLOGGED (--unlogged, ADR 0190), the marker row beside the tables.
    const std::string unlogged =
        "select count(*) from pg_class c join pg_namespace n on n.oid = c.relnamespace where "
        "n.nspname = 'rebuild_a' and c.relname in ('charge_events', 'charges', "
        "'settlement_lines') and c.relpersistence = 'u'";
    EXPECT_EQ(count(db, unlogged), 3);
    EXPECT_EQ(count(db, "select count(*) from rebuild_a.replay_unlogged"), 1);
    ASSERT_EQ(replay({"--schema", "rebuild_a", "--unlogged"}, out), 0) << out;
    auto report = parse(out);
    ASSERT_TRUE(report.IsObject()) << out;
    EXPECT_NE(out.find("resuming at"), std::string::npos) << out;
    EXPECT_EQ(report["events"].GetInt64(), events);
    EXPECT_EQ(report["applied"].GetInt64() + partial, events) << out;  // nothing read twice
    EXPECT_TRUE(report["comparison"]["equal"].GetBool()) << out;
    EXPECT_EQ(report["comparison"]["charges"].GetInt64(), kSyntheticCharges + 1) << out;
    EXPECT_EQ(count(db, "select count(*) from rebuild_a.charges"), kSyntheticCharges + 1);
    // The settlement rows (ADR 0240): one per paid synthetic charge, the same as the live ones.
    EXPECT_EQ(count(db, "select count(*) from rebuild_a.settlement_lines"), kSyntheticCharges / 2);
    EXPECT_EQ(count(db, "select count(*) from public.settlement_lines"), kSyntheticCharges / 2);
    EXPECT_EQ(count(db,
                    "select count(*) from (select * from public.settlement_lines except "
                    "select * from rebuild_a.settlement_lines) d"),
              0);
    // Their per-day sums (ADR 0250), rebuilt with them: the same rows both ways.
    EXPECT_GT(count(db, "select count(*) from rebuild_a.settlement_daily"), 0);
    EXPECT_EQ(count(db,
                    "select count(*) from ((select * from public.settlement_daily except "
                    "select * from rebuild_a.settlement_daily) union all (select * from "
                    "rebuild_a.settlement_daily except select * from public.settlement_daily)) d"),
              0);
    EXPECT_EQ(count(db, unlogged), 0);  // made durable before the comparison
    EXPECT_EQ(count(db,
                    "select count(*) from pg_tables where schemaname = 'rebuild_a' and "
                    "tablename = 'replay_unlogged'"),
              0);
    // Progress went to stderr as plain lines (not a terminal) and ended with the total.
    EXPECT_NE(out.find("replay: 100% 6,751/6,751 events"), std::string::npos) << out;

    // 2. A shadow that differs in one row is reported and never swapped in.
    ASSERT_EQ(replay({"--schema", "rebuild_b"}, out), 0) << out;
    {
        pqxx::work tx(db);
        tx.exec_params("update rebuild_b.charges set status = 'expired' where invoice_id = $1",
                       first);
        tx.commit();
    }
    EXPECT_EQ(replay({"--schema", "rebuild_b", "--swap"}, out), 1) << out;
    report = parse(out);
    ASSERT_TRUE(report.IsObject()) << out;
    EXPECT_EQ(report["comparison"]["mismatches"].GetInt64(), 1) << out;
    EXPECT_EQ(std::string(report["comparison"]["examples"][0].GetString()), first);
    EXPECT_FALSE(report["swapped"].GetBool());
    EXPECT_FALSE(report.HasMember("lockedSeconds")) << "never locked: " << out;
    EXPECT_EQ(count(db, "select count(*) from pg_namespace where nspname like 'duepay_retired_%'"),
              0);
    // The swap's recheck under the lock (compare_with_live with `since`) looks only at charges
    // with an event from `since` on: from the journal's end, none; from the changed charge's
    // first event in its partition, that charge again (ADR 0200).
    {
        namespace rm = projections::charges;
        pqxx::read_transaction tx(db);
        std::map<std::int32_t, std::int64_t> end;
        for (const auto& r : tx.exec_params("select partition, max(\"offset\") + 1 from "
                                            "charge_events where topic = $1 group by 1",
                                            server_.topic)) {
            end[r[0].as<std::int32_t>()] = r[1].as<std::int64_t>();
        }
        const auto all = rm::compare_with_live(tx, "rebuild_b", server_.topic, end);
        EXPECT_EQ(all.mismatches, 1);
        const auto none = rm::compare_with_live(tx, "rebuild_b", server_.topic, end, &end);
        EXPECT_EQ(none.charges, 0);
        EXPECT_EQ(none.mismatches, 0);
        const auto at = tx.exec_params1(
            "select partition, min(\"offset\") from charge_events where invoice_id = $1 "
            "group by 1",
            first);
        auto since = end;
        since[at[0].as<std::int32_t>()] = at[1].as<std::int64_t>();
        const auto again = rm::compare_with_live(tx, "rebuild_b", server_.topic, end, &since);
        EXPECT_GE(again.charges, 1);
        EXPECT_LT(again.charges, all.charges);
        EXPECT_EQ(again.mismatches, 1);
        ASSERT_EQ(again.examples.size(), 1u);
        EXPECT_EQ(again.examples[0], first);
        // Given the charges touched since (the swap passes the records it caught up with), only
        // those are read; none touched, nothing compared.
        const std::vector<std::string> only_first{first};
        const auto by_id =
            rm::compare_with_live(tx, "rebuild_b", server_.topic, end, &since, &only_first);
        EXPECT_EQ(by_id.charges, 1);
        EXPECT_EQ(by_id.mismatches, 1);
        const std::vector<std::string> untouched;
        EXPECT_EQ(
            rm::compare_with_live(tx, "rebuild_b", server_.topic, end, &since, &untouched).charges,
            0);
    }

    // A shadow whose settlement rows differ is refused too (ADR 0240): one changed fee.
    {
        namespace rm = projections::charges;
        pqxx::work tx(db);
        const auto paid = tx.exec1(
                                "select invoice_id from rebuild_b.settlement_lines "
                                "order by invoice_id limit 1")[0]
                              .as<std::string>();
        tx.exec_params("update rebuild_b.settlement_lines set fee = fee + 1 where invoice_id = $1",
                       paid);
        std::map<std::int32_t, std::int64_t> end;
        for (const auto& r : tx.exec_params("select partition, max(\"offset\") + 1 from "
                                            "charge_events where topic = $1 group by 1",
                                            server_.topic)) {
            end[r[0].as<std::int32_t>()] = r[1].as<std::int64_t>();
        }
        const auto lines = rm::compare_with_live(tx, "rebuild_b", server_.topic, end);
        EXPECT_EQ(lines.mismatches, 2);
        EXPECT_NE(std::find(lines.examples.begin(), lines.examples.end(), paid),
                  lines.examples.end());
        tx.commit();
    }

    // 3. --swap while a reader hammers the API: every read answers 200.
    std::atomic<bool> done{false};
    std::atomic<int> reads{0};
    std::atomic<int> failures{0};
    std::thread reader([&] {
        while (!done) {
            auto r = http("GET", server_.base_url + "/v1/charges/" + first, {{"x-api-key", key_}});
            ++reads;
            if (r.status != 200) ++failures;
        }
    });
    const auto more = create_charge();  // after the replay's snapshot: caught up in the swap
    const int rc = replay({"--schema", "rebuild_a", "--swap"}, out);
    done = true;
    reader.join();
    ASSERT_EQ(rc, 0) << out;
    report = parse(out);
    ASSERT_TRUE(report["swapped"].GetBool()) << out;
    // Under the lock only what changed since the unlocked comparison is compared again.
    ASSERT_TRUE(report.HasMember("lockedComparison") && report.HasMember("lockedSeconds")) << out;
    EXPECT_TRUE(report["lockedComparison"]["equal"].GetBool()) << out;
    EXPECT_LT(report["lockedComparison"]["charges"].GetInt64(),
              report["comparison"]["charges"].GetInt64())
        << out;
    const std::string retired = report["retiredSchema"].GetString();
    EXPECT_GT(reads.load(), 0);
    EXPECT_EQ(failures.load(), 0) << "of " << reads.load() << " reads";
    EXPECT_EQ(count(db, "select count(*) from pg_namespace where nspname = 'rebuild_a'"), 0);
    EXPECT_EQ(count(db, "select count(*) from " + retired + ".charges"), kSyntheticCharges + 2);
    EXPECT_EQ(count(db, "select count(*) from public.charges"), kSyntheticCharges + 2);
    EXPECT_EQ(count(db, "select count(*) from public.settlement_lines"), kSyntheticCharges / 2);
    EXPECT_EQ(count(db,
                    "select count(*) from pg_indexes where schemaname = 'public' and "
                    "indexname = 'settlement_lines_period_idx'"),
              1);
    // The indexes left out while loading were built: the same set as the live tables had.
    const std::string indexes =
        "select string_agg(indexname || substring(indexdef from ' USING .*$'), ';' order by "
        "indexname) from pg_indexes where tablename = 'charges' and schemaname = ";
    {
        pqxx::read_transaction tx(db);
        const auto swapped_in = tx.exec1(indexes + "'public'")[0].as<std::string>();
        EXPECT_EQ(swapped_in, tx.exec1(indexes + tx.quote(retired))[0].as<std::string>());
        EXPECT_NE(swapped_in.find("charges_list_status_idx"), std::string::npos) << swapped_in;
    }

    // The projector and the API go on with the swapped-in tables.
    const auto after = create_charge();
    ASSERT_FALSE(after.empty());
    EXPECT_EQ(http("GET", server_.base_url + "/v1/charges/" + after, {{"x-api-key", key_}}).status,
              200);
    EXPECT_EQ(http("GET", server_.base_url + "/v1/charges/" + more, {{"x-api-key", key_}}).status,
              200);
    EXPECT_EQ(count(db, "select count(*) from public.charges"), kSyntheticCharges + 3);
    EXPECT_EQ(count(db, "select count(*) from " + retired + ".charges"), kSyntheticCharges + 2);

    // 4. --drop-old drops the retired set.
    ASSERT_EQ(replay({"--drop-old"}, out), 0) << out;
    EXPECT_EQ(count(db, "select count(*) from pg_namespace where nspname = '" + retired + "'"), 0);
}

// A charge whose events straddle batches (14 events, --batch 4), the replay killed while a later
// batch of it waits: the resume folds the charge once from the replay's own journal and carries
// on in memory; a fresh replay folds it in memory across batches. Both equal the live rows.
TEST_F(ReplayTest, AChargeStraddlingBatchesKilledBetweenThemResumesToTheSameRow) {
    // 8 charges, 12 transfers per paid one: 2 x (1 + 14 + 14 + 2) = 62 events.
    std::string out;
    ASSERT_EQ(run_command({DUEPAY_PRODUCER, "--topic", server_.topic, "--project", project_,
                           "--charges", "8", "--detections", "12"},
                          {}, out, std::chrono::seconds(60)),
              0)
        << out;
    const std::int64_t events = 62;
    pqxx::connection db(url_);
    ASSERT_TRUE(
        wait_until([&] { return count(db, "select count(*) from charge_events") == events; },
                   std::chrono::seconds(60)))
        << server_.process->log();
    std::string charge;
    std::string tenth;
    {
        pqxx::work tx(db);
        charge = tx.exec1(
                       "select invoice_id from charge_events group by 1 "
                       "order by count(*) desc, invoice_id limit 1")[0]
                     .as<std::string>();
        tenth = tx.exec_params1(
                      "select event_id from charge_events where invoice_id = $1 "
                      "order by \"offset\" offset 9 limit 1",
                      charge)[0]
                    .as<std::string>();
        // The shadow as the replay creates it (idempotent there).
        tx.exec("create schema straddle");
        for (const char* table : projections::charges::kRebuiltTables) {
            tx.exec(std::string("create table straddle.") + table + " (like public." + table +
                    " including all)");
        }
        tx.commit();
    }
    EXPECT_EQ(count(db, "select count(*) from charge_events where invoice_id = '" + charge + "'"),
              14);
    // Journal the tenth event in a transaction left open: the replay's batch holding it waits
    // on the row lock, after the batches before it committed.
    pqxx::connection holder(url_);
    pqxx::work hold(holder);
    hold.exec_params(
        "insert into straddle.charge_events select * from public.charge_events "
        "where event_id = $1",
        tenth);
    {
        Process killed({duepay_binary(), "replay", "--schema", "straddle", "--batch", "4"},
                       killed_env(), "/tmp/duepay-replay-straddle-" + unique_suffix() + ".log");
        // Waiting on the holder's row lock, not on another worker's (the replay's workers also
        // wait on each other for a moment over the stats rows they share, ADR 0245).
        const auto holder_pid = std::to_string(holder.backendpid());
        ASSERT_TRUE(wait_until(
            [&] {
                return count(db, "select count(*) from pg_stat_activity where " + holder_pid +
                                     " = any(pg_blocking_pids(pid))") > 0 ||
                       !killed.alive();
            },
            std::chrono::seconds(60)));
        ASSERT_TRUE(killed.alive()) << "finished without waiting: " << killed.log();
        killed.kill_hard();
    }
    hold.abort();
    wait_for_killed_backends(db);
    const auto partial = count(db, "select count(*) from straddle.charge_events");
    const auto partial_of_charge = count(
        db, "select count(*) from straddle.charge_events where invoice_id = '" + charge + "'");
    EXPECT_GT(partial_of_charge, 0);  // the batches before the waiting one committed
    EXPECT_LT(partial_of_charge, 10);
    ASSERT_EQ(replay({"--schema", "straddle", "--batch", "4"}, out), 0) << out;
    auto report = parse(out);
    ASSERT_TRUE(report.IsObject()) << out;
    EXPECT_NE(out.find("resuming at"), std::string::npos) << out;
    EXPECT_EQ(report["applied"].GetInt64() + partial, events) << out;
    EXPECT_TRUE(report["comparison"]["equal"].GetBool()) << out;
    EXPECT_EQ(report["comparison"]["charges"].GetInt64(), 8) << out;
    const std::string same_row =
        "select count(*) from public.charges a join straddle.charges r using (invoice_id) "
        "where to_jsonb(a) = to_jsonb(r) and r.event_count = 14 and invoice_id = '" +
        charge + "'";
    EXPECT_EQ(count(db, same_row), 1);

    // From an empty journal: every charge is folded in memory across its batches.
    ASSERT_EQ(replay({"--schema", "straddle_fresh", "--batch", "4"}, out), 0) << out;
    report = parse(out);
    ASSERT_TRUE(report.IsObject()) << out;
    EXPECT_EQ(report["applied"].GetInt64(), events) << out;
    EXPECT_TRUE(report["comparison"]["equal"].GetBool()) << out;
    EXPECT_EQ(report["comparison"]["charges"].GetInt64(), 8) << out;

    // What a Postgres crash leaves of an unlogged shadow (ADR 0190): the tables and the marker
    // reset to empty, the replay's offsets (logged) at the end. The replay notices and starts
    // again from offset 0, instead of resuming into empty tables.
    {
        pqxx::work tx(db);
        tx.exec("create schema crashed");
        for (const char* table : projections::charges::kRebuiltTables) {
            tx.exec(std::string("create unlogged table crashed.") + table + " (like public." +
                    table + " including all)");
        }
        tx.exec("create unlogged table crashed.replay_unlogged (since timestamptz not null)");
        tx.exec_params(
            "insert into consumer_offsets (group_id, topic, partition, next_offset) select "
            "'duepay-replay-crashed', topic, partition, next_offset from consumer_offsets "
            "where group_id = $1",
            server_.group);
        tx.commit();
    }
    ASSERT_GT(count(db,
                    "select count(*) from consumer_offsets where group_id = "
                    "'duepay-replay-crashed'"),
              0);
    ASSERT_EQ(replay({"--schema", "crashed", "--batch", "4", "--unlogged"}, out), 0) << out;
    report = parse(out);
    ASSERT_TRUE(report.IsObject()) << out;
    EXPECT_NE(out.find("emptied by a Postgres crash"), std::string::npos) << out;
    EXPECT_EQ(report["applied"].GetInt64(), events) << out;
    EXPECT_TRUE(report["comparison"]["equal"].GetBool()) << out;
    EXPECT_EQ(report["comparison"]["charges"].GetInt64(), 8) << out;
    EXPECT_EQ(count(db, "select count(*) from crashed.charge_events"), events);
}

}  // namespace
}  // namespace duepay::tests
