// The stats read model (ADR 0245) against the real stack (label integration), in a database of
// its own (the replay fixture, replay_fixture.hpp): charges created over the API, paid on anvil
// with `duepay simulate-payment` on both rails (one underpaid with --amount, one priced in THB,
// one never paid) and seen by a real chainwatch. The stats rows equal what a direct aggregate
// over the charges read model gives for the same charges; equal again after every record of the
// topic is produced a second time (the projector applies an event once); and equal again after
// `duepay replay --swap` rebuilt them from the topic (the live ones spoiled first, so only the
// rebuild can make them right).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "tests/integration/analysts/replay_fixture.hpp"
#include "tests/integration/pipeline/event_stream.hpp"

namespace duepay::tests {
namespace {

// Rows of a query as text lines ("a|b|c"), in the query's order.
std::vector<std::string> lines(pqxx::connection& db, const std::string& sql,
                               const std::string& project) {
    pqxx::read_transaction tx(db);
    std::vector<std::string> out;
    for (const auto& r : tx.exec_params(sql, project)) {
        std::string line;
        for (const auto& f : r) {
            if (!line.empty()) line += '|';
            line += f.c_str();
        }
        out.push_back(line);
    }
    return out;
}

// Each figure twice: from the stats tables and straight from the charges (the test's charges pay
// once each, in their window: no late deposit, no refund).
struct Figure {
    const char* name;
    const char* stats;
    const char* charges;
};
const Figure kFigures[] = {
    {"current count by status",
     "select status, charges from charge_status_counts where project_id = $1 and mode = 'test' "
     "and charges <> 0 order by 1",
     "select status, count(*) from charges where project_id = $1 and mode = 'test' group by 1 "
     "order by 1"},
    {"created and converted per creation day, chain, token and currency",
     "select day, chain_id, token, fiat_currency, created, converted from charge_stats_daily "
     "where project_id = $1 and mode = 'test' and created > 0 order by 1, 2, 3, 4",
     "select (created_at at time zone 'utc')::date, chain_id, token, "
     "  coalesce(fiat->>'currency', ''), count(*), "
     "  count(*) filter (where timeline @> '[{\"status\": \"paid\"}]') "
     "from charges where project_id = $1 and mode = 'test' group by 1, 2, 3, 4 order by 1, 2, 3, "
     "4"},
    {"paid volume, payments and fiat per chain, token and currency",
     "select chain_id, token, fiat_currency, sum(payments), sum(paid_volume), sum(paid_fiat) "
     "from charge_stats_daily where project_id = $1 and mode = 'test' group by 1, 2, 3 "
     "having sum(payments) > 0 order by 1, 2, 3",
     "select chain_id, token, coalesce(fiat->>'currency', ''), count(*), sum(amount_confirmed), "
     "  sum(case when fiat is null then 0 else round(amount_confirmed "
     "    * split_part(fiat->>'rate', '/', 1)::numeric * 100 "
     "    / (coalesce(nullif(split_part(fiat->>'rate', '/', 2), ''), '1')::numeric "
     "       * power(10::numeric, token_decimals))) end) "
     "from charges where project_id = $1 and mode = 'test' and amount_confirmed > 0 "
     "group by 1, 2, 3 order by 1, 2, 3"},
    {"charges entering paid per day",
     "select day, sum(entered_paid) from charge_stats_daily where project_id = $1 and "
     "mode = 'test' group by 1 having sum(entered_paid) > 0 order by 1",
     "select ((t->>'at')::timestamptz at time zone 'utc')::date, count(*) from charges, "
     "  jsonb_array_elements(timeline) t where project_id = $1 and mode = 'test' "
     "  and t->>'status' = 'paid' group by 1 order by 1"},
    {"time to paid per day and bucket",
     "select day, bucket, charges from charge_paid_seconds where project_id = $1 and "
     "mode = 'test' order by 1, 2",
     "with p as (select ((t->>'at')::timestamptz at time zone 'utc')::date as day, "
     "  greatest(floor(extract(epoch from (t->>'at')::timestamptz - created_at)), 0)::bigint as s "
     "  from charges, jsonb_array_elements(timeline) t where project_id = $1 and mode = 'test' "
     "  and t->>'status' = 'paid'), "
     "b as (select day, case when s < 16 then s else 16 + 8 * (floor(log(2, s::numeric))::int - 4) "
     "  + ((s >> (floor(log(2, s::numeric))::int - 3)) & 7) end as bucket from p) "
     "select day, bucket, count(*) from b group by 1, 2 order by 1, 2"},
};

class StatsTest : public ReplayTest {
  protected:
    void expect_stats_match_charges(pqxx::connection& db, const std::string& when) {
        for (const auto& f : kFigures) {
            const auto want = lines(db, f.charges, project_);
            EXPECT_FALSE(want.empty()) << f.name << " (" << when << ")";
            EXPECT_EQ(lines(db, f.stats, project_), want) << f.name << " (" << when << ")";
        }
    }

    std::string create(const std::string& body) {
        auto r = http("POST", server_.base_url + "/v1/invoices",
                      {{"x-api-key", key_}, {"content-type", "application/json"}}, body);
        EXPECT_EQ(r.status, 201) << r.body;
        rapidjson::Document d;
        d.Parse(r.body.c_str());
        return d.HasParseError() || !d.HasMember("data") ? "" : d["data"]["invoiceId"].GetString();
    }

    void pay(const std::string& invoice, const std::string& rail,
             const std::vector<std::string>& more = {}) {
        std::vector<std::string> argv{duepay_binary(), "simulate-payment", "--invoice",
                                      invoice,         "--rail",           rail};
        argv.insert(argv.end(), more.begin(), more.end());
        std::string out;
        ASSERT_EQ(run_command(argv, {{"DATABASE_URL", url_}}, out, std::chrono::seconds(60)), 0)
            << out;
        EXPECT_NE(out.find("\"status\":\"success\""), std::string::npos) << out;
    }
};

TEST_F(StatsTest, StatsEqualADirectAggregateLiveAfterDuplicatesAndAfterAReplay) {
    Process chainwatch({duepay_binary(), "chainwatch", "--chain", "80002"},
                       {{"DATABASE_URL", url_}, {"DUEPAY_TOPIC", server_.topic}},
                       "/tmp/duepay-stats-chainwatch-" + unique_suffix() + ".log");
    ASSERT_TRUE(wait_until(
        [&] {
            return chainwatch.log().find("caught up") != std::string::npos || !chainwatch.alive();
        },
        std::chrono::seconds(60)));
    ASSERT_TRUE(chainwatch.alive()) << chainwatch.log();

    const auto wallet1 = create(R"({"chainId":80002,"amount":"2500000","paymentMode":"wallet"})");
    const auto wallet2 = create(R"({"chainId":80002,"amount":"1000000","paymentMode":"wallet"})");
    const auto transfer =
        create(R"({"chainId":80002,"amount":"3000000","paymentMode":"transfer"})");
    const auto under = create(R"({"chainId":80002,"amount":"4000000","paymentMode":"transfer"})");
    const auto thb =
        create(R"({"chainId":80002,"fiat":{"currency":"THB","amount":"35.00"},"token":"USDT"})");
    const auto unpaid = create(R"({"chainId":80002,"amount":"5000000"})");
    for (const auto& id : {wallet1, wallet2, transfer, under, thb, unpaid})
        ASSERT_FALSE(id.empty());
    pay(wallet1, "wallet");
    pay(wallet2, "wallet");
    pay(transfer, "transfer");
    pay(under, "transfer", {"--amount", "1500000"});
    pay(thb, "wallet");

    pqxx::connection db(url_);
    const auto status = [&](const std::string& id) {
        pqxx::read_transaction tx(db);
        const auto r = tx.exec_params("select status from charges where invoice_id = $1", id);
        return r.empty() ? std::string() : r[0][0].as<std::string>();
    };
    ASSERT_TRUE(wait_until(
        [&] {
            return status(wallet1) == "paid" && status(wallet2) == "paid" &&
                   status(transfer) == "paid" && status(thb) == "paid" &&
                   status(under) == "underpaid";
        },
        std::chrono::seconds(90)))
        << chainwatch.log() << server_.process->log();
    EXPECT_EQ(status(unpaid), "pending");
    expect_stats_match_charges(db, "live");
    // The figures the overview shows, spelled out: 6 created, 4 paid, 1 underpaid, 1 pending.
    EXPECT_EQ(count(db, "select sum(created) from charge_stats_daily where project_id = '" +
                            project_ + "'"),
              6);
    EXPECT_EQ(count(db, "select sum(converted) from charge_stats_daily where project_id = '" +
                            project_ + "'"),
              4);
    EXPECT_EQ(count(db, "select charges from charge_status_counts where project_id = '" + project_ +
                            "' and status = 'underpaid'"),
              1);

    // Every record of the topic once more: journaled already, so nothing is counted twice.
    const auto events = static_cast<std::size_t>(count(db, "select count(*) from charge_events"));
    const auto records =
        read_topic(env_.kafka_bootstrap, server_.topic, events, std::chrono::seconds(30));
    ASSERT_EQ(records.size(), events);
    std::vector<ports::LogRecord> again;
    for (const auto& m : records) again.push_back({m.key, m.value});
    ASSERT_EQ(produce_all(env_.kafka_bootstrap, server_.topic, again), again.size());
    ASSERT_TRUE(wait_until(
        [&] {
            return count(db,
                         "select coalesce(sum(next_offset), 0) from consumer_offsets where "
                         "group_id = '" +
                             server_.group + "'") == static_cast<std::int64_t>(2 * events);
        },
        std::chrono::seconds(60)));
    expect_stats_match_charges(db, "after every record twice");

    // Spoil the live stats, then rebuild: only the replay's tables can match again.
    {
        pqxx::work tx(db);
        tx.exec("update charge_status_counts set charges = charges + 7");
        tx.exec("update charge_stats_daily set created = created + 1, paid_volume = 0");
        tx.exec("delete from charge_paid_seconds");
        tx.commit();
    }
    std::string out;
    ASSERT_EQ(replay({"--schema", "stats_rebuild", "--swap"}, out), 0) << out;
    ASSERT_TRUE(parse(out)["swapped"].GetBool()) << out;
    expect_stats_match_charges(db, "after the replay");
}

}  // namespace
}  // namespace duepay::tests
