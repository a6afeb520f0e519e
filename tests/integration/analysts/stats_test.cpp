// The stats read model (ADR 0245) against the real stack (label integration), in a database of
// its own (the replay fixture, replay_fixture.hpp): charges created over the API, paid on anvil
// with `duepay simulate-payment` on both rails (one underpaid with --amount, one priced in THB,
// one never paid) and seen by a real chainwatch. The stats rows equal what a direct aggregate
// over the charges read model gives for the same charges; equal again after every record of the
// topic is produced a second time (the projector applies an event once); and equal again after
// `duepay replay --swap` rebuilt them from the topic (the live ones spoiled first, so only the
// rebuild can make them right).
//
// The settlement report's per-day sums (settlement_daily, ADR 0250) are checked at the same three
// points: equal to a GROUP BY over settlement_lines, and the report's totals (settlement_totals:
// whole days from the sums, partial days from the rows) equal to the sums of every row of the
// period read page by page. A second test writes rows of its own over three days (payments and
// refunds, two tokens, THB, USD and no quote, rows at midnight, a batch written twice) and checks
// the totals of whole, partial, empty and one-instant periods.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "domain/events/event.hpp"
#include "domain/evm/address.hpp"
#include "domain/reports/settlement_totals.hpp"
#include "infra/postgres/charge_stats_store.hpp"
#include "infra/postgres/pool.hpp"
#include "infra/postgres/project_stats.hpp"
#include "infra/postgres/settlement_store.hpp"
#include "tests/integration/analysts/replay_fixture.hpp"
#include "tests/integration/pipeline/event_stream.hpp"

namespace duepay::tests {
namespace {

namespace rep = domain::reports;
namespace pg = infra::postgres;

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

// Each paid charge of the project $1 as (day paid, bucket of its time to paid), from the charges.
#define PAID_BUCKETS                                                                               \
    "with p as (select ((t->>'at')::timestamptz at time zone 'utc')::date as day, "                \
    "  greatest(floor(extract(epoch from (t->>'at')::timestamptz - created_at)), 0)::bigint as s " \
    "  from charges, jsonb_array_elements(timeline) t where project_id = $1 and mode = 'test' "    \
    "  and t->>'status' = 'paid'), "                                                               \
    "b as (select day, case when s < 16 then s else 16 + 8 * (floor(log(2, s::numeric))::int - "   \
    "4) "                                                                                          \
    "  + ((s >> (floor(log(2, s::numeric))::int - 3)) & 7) end as bucket from p) "

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
     PAID_BUCKETS "select day, bucket, count(*) from b group by 1, 2 order by 1, 2"},
    // charge_paid_through (ADR 0275): per day that has paid charges, each bucket's charges paid
    // on that day or before, which the overview subtracts instead of summing the rows above.
    {"time to paid through each day, per bucket",
     "select t.day, b.i - 1, t.charges[b.i] from charge_paid_through t, "
     "  generate_subscripts(t.charges, 1) as b(i) where t.project_id = $1 and t.mode = 'test' "
     "  and t.charges[b.i] <> 0 order by 1, 2",
     PAID_BUCKETS "select d.day, b.bucket, count(*) from (select distinct day from b) d "
                  "join b on b.day <= d.day group by 1, 2 order by 1, 2"},
};

// settlement_daily, and the same rows computed by a GROUP BY over settlement_lines (migration
// 0250's columns), each in key order.
constexpr const char* kDailyRows =
    "select mode, day, chain_id, token, fiat_currency, token_symbol, token_decimals, payments, "
    "refunds, paid, refunded, fee, net, fiat_amount, fiat_fee, fiat_net from settlement_daily "
    "where project_id = $1 order by 1, 2, 3, 4, 5";
constexpr const char* kDailyFromLines =
    "select mode, (confirmed_at at time zone 'utc')::date, chain_id, token, "
    "  coalesce(fiat_currency, ''), min(token_symbol), min(token_decimals), "
    "  count(*) filter (where kind = 'payment'), count(*) filter (where kind = 'refund'), "
    "  coalesce(sum(amount) filter (where kind = 'payment'), 0), "
    "  coalesce(sum(amount) filter (where kind = 'refund'), 0), sum(fee), sum(net), "
    "  coalesce(sum(fiat_amount), 0), coalesce(sum(fiat_fee), 0), coalesce(sum(fiat_net), 0) "
    "from settlement_lines where project_id = $1 group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5";

// A row as the totals read it (the REST report's reading, api/http/reports_api.cpp).
rep::TotalsInput totals_input(const ports::SettlementLine& l) {
    const auto integer = [](const std::string& text) { return *rep::parse_integer(text); };
    const auto minor = [](const std::optional<std::string>& text) {
        return *rep::parse_fixed(*text, 2);
    };
    rep::TotalsInput in;
    in.chain_id = l.chain_id;
    in.token = l.token;
    in.symbol = l.token_symbol ? std::string_view(*l.token_symbol) : std::string_view();
    in.decimals = static_cast<unsigned>(l.token_decimals);
    in.kind = l.kind == "refund" ? rep::RowKind::refund : rep::RowKind::payment;
    in.amount = integer(l.amount);
    in.fee = integer(l.fee);
    in.net = integer(l.net);
    if (l.fiat_currency) {
        in.fiat_currency = *l.fiat_currency;
        in.fiat_amount = minor(l.fiat_amount);
        in.fiat_fee = minor(l.fiat_fee);
        in.fiat_net = minor(l.fiat_net);
    }
    return in;
}

std::string describe(const rep::SettlementTotals& t) {
    std::ostringstream out;
    for (const auto& k : t.tokens) {
        out << k.chain_id << ' ' << k.token << ' ' << k.symbol << '/' << k.decimals << ' '
            << k.payments << ' ' << k.refunds << ' ' << k.paid << ' ' << k.refunded << ' '
            << k.amount << ' ' << k.fees << ' ' << k.net << '\n';
    }
    for (const auto& f : t.fiat) {
        out << f.currency << ' ' << f.rows << ' ' << f.amount << ' ' << f.fees << ' ' << f.net
            << '\n';
    }
    return out.str();
}

// The totals of [from, to) of the project's test mode twice: settlement_totals (ADR 0250), and
// the sums of every row of the period read in pages of 2 (the direct sums). Returns the latter.
rep::SettlementTotals expect_totals_equal(pqxx::connection& db, const std::string& project,
                                          std::int64_t from_ms, std::int64_t to_ms) {
    pqxx::read_transaction tx(db);
    ports::SettlementQuery q;
    q.project_id.value = project;
    q.from_ms = from_ms;
    q.to_ms = to_ms;
    q.limit = 2;
    rep::TotalsAccumulator direct;
    for (;;) {
        const auto page = pg::settlement_page(tx, q);
        for (const auto& line : page) direct.add(totals_input(line));
        if (page.size() < q.limit) break;
        q.after = ports::position_of(page.back());
    }
    const auto want = direct.totals();
    const auto got = pg::settlement_totals(tx, q);
    EXPECT_EQ(got, want) << "period " << domain::events::format_rfc3339_millis_utc(from_ms)
                         << " .. " << domain::events::format_rfc3339_millis_utc(to_ms)
                         << "\nrollup:\n"
                         << describe(got) << "direct:\n"
                         << describe(want);
    return want;
}

constexpr std::int64_t kDay = 86'400'000;

class StatsTest : public ReplayTest {
  protected:
    // settlement_daily equals a GROUP BY over settlement_lines, and the totals of periods around
    // the project's rows (whole days, partial days, no day, one instant, empty) the direct sums.
    void expect_settlement_sums_match(pqxx::connection& db, const std::string& when) {
        const auto want = lines(db, kDailyFromLines, project_);
        EXPECT_FALSE(want.empty()) << when;
        EXPECT_EQ(lines(db, kDailyRows, project_), want) << when;
        const auto first = count(db,
                                 "select (extract(epoch from min(confirmed_at)) * 1000)::bigint "
                                 "from settlement_lines where project_id = '" +
                                     project_ + "'");
        const auto last = count(db,
                                "select (extract(epoch from max(confirmed_at)) * 1000)::bigint "
                                "from settlement_lines where project_id = '" +
                                    project_ + "'");
        const auto day = first - first % kDay;
        SCOPED_TRACE(when);
        const auto whole = expect_totals_equal(db, project_, day - kDay, last - last % kDay + kDay);
        // The five paid charges (one underpaid), all in Amoy's USDT; one priced in THB.
        ASSERT_EQ(whole.tokens.size(), 1u) << describe(whole);
        EXPECT_EQ(whole.tokens[0].payments, 5u) << describe(whole);
        ASSERT_EQ(whole.fiat.size(), 1u) << describe(whole);
        EXPECT_EQ(whole.fiat[0].rows, 1u) << describe(whole);
        expect_totals_equal(db, project_, first, last + 1);
        expect_totals_equal(db, project_, first + 1, last + kDay);
        expect_totals_equal(db, project_, day - kDay + 5, last + kDay + 7);
        EXPECT_FALSE(expect_totals_equal(db, project_, first, first + 1).tokens.empty());
        EXPECT_EQ(expect_totals_equal(db, project_, day - 3 * kDay, day - kDay),
                  rep::SettlementTotals{});
    }

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
    expect_settlement_sums_match(db, "live");
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
    expect_settlement_sums_match(db, "after every record twice");

    // Spoil the live stats, then rebuild: only the replay's tables can match again.
    {
        pqxx::work tx(db);
        tx.exec("update charge_status_counts set charges = charges + 7");
        tx.exec("update charge_stats_daily set created = created + 1, paid_volume = 0");
        tx.exec("delete from charge_paid_seconds");
        tx.exec("update charge_paid_through set charges = array_fill(0::bigint, array[232])");
        tx.exec("update settlement_daily set payments = payments + 1, paid = 0");
        tx.commit();
    }
    std::string out;
    ASSERT_EQ(replay({"--schema", "stats_rebuild", "--swap"}, out), 0) << out;
    ASSERT_TRUE(parse(out)["swapped"].GetBool()) << out;
    expect_stats_match_charges(db, "after the replay");
    expect_settlement_sums_match(db, "after the replay");
}

// A settlement row of the project prj_rollup (test mode unless `mode`), `amount` etc. signed.
pg::SettlementRow line(const std::string& kind, int n, const std::string& at, std::uint64_t chain,
                       const std::string& token, const std::string& amount, const std::string& fee,
                       const std::string& net, std::optional<std::string> currency = std::nullopt,
                       const std::vector<std::string>& fiat = {},
                       const std::string& mode = "test") {
    pg::SettlementRow r;
    r.invoice_id = "0x" + std::string(62, '0') + (n < 10 ? "0" : "") + std::to_string(n);
    r.kind = kind;
    r.tx_hash = "0x" + std::string(63, 'a') + std::to_string(n % 10);
    r.log_index = n;
    r.project_id = "prj_rollup";
    r.mode = mode;
    r.chain_id = chain;
    r.token = token;
    r.token_symbol = chain == 1 ? "USDT" : "USDC";
    r.token_decimals = 6;
    r.block_number = 100 + static_cast<std::uint64_t>(n);
    r.confirmed_at = at;
    r.amount = amount;
    r.fee = fee;
    r.net = net;
    if (currency) {
        r.fiat_currency = currency;
        r.fiat_rate = "35";
        r.fiat_amount = fiat.at(0);
        r.fiat_fee = fiat.at(1);
        r.fiat_net = fiat.at(2);
    }
    if (kind == "refund") r.refund_id = "rf_" + std::to_string(n);
    return r;
}

// settlement_daily and the totals over rows written straight through the projector's insert:
// three days of payments and refunds in two tokens, priced in THB, USD or not at all, rows at
// and next to midnight, a row of the live mode, and batches written twice.
// A database of a test's own (every migration applied), dropped on every way out: declared before
// the test's connection, so dropped after it closes.
struct ScratchDatabase {
    ScratchDatabase(const StackEnv& stack, std::string db_name)
        : env(stack), name(std::move(db_name)), url(create_database(env, name)) {}
    ScratchDatabase(const ScratchDatabase&) = delete;
    ScratchDatabase& operator=(const ScratchDatabase&) = delete;
    ~ScratchDatabase() { drop_database(env, name); }
    const StackEnv& env;
    std::string name;
    std::string url;
};

TEST(SettlementDailyTest, TotalsFromTheDailySumsEqualTheDirectSumsForEveryPeriod) {
    std::string missing;
    const auto env = stack_env(missing);
    if (!env) GTEST_SKIP() << "integration stack not configured: " << missing;
    const ScratchDatabase scratch(*env, "duepay_rollup_test_" + std::to_string(getpid()));
    pqxx::connection db(scratch.url);
    const std::string a = "0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582";
    const std::string b = "0xdAC17F958D2ee523a2206206994597C13D831ec7";
    const std::vector<pg::SettlementRow> rows{
        line("payment", 1, "2026-03-01T10:00:00.000Z", 80002, a, "1000000", "10000", "990000",
             "THB", {"35.00", "0.35", "34.65"}),
        line("payment", 2, "2026-03-01T23:59:59.999Z", 80002, a, "2000000", "20000", "1980000"),
        line("refund", 3, "2026-03-02T00:00:00.000Z", 80002, a, "-500000", "0", "-500000", "THB",
             {"-17.50", "0.00", "-17.50"}),
        line("payment", 4, "2026-03-02T12:00:00.000Z", 1, b, "7", "0", "7", "USD",
             {"1.23", "0.01", "1.22"}),
        line("payment", 5, "2026-03-03T00:00:00.001Z", 80002, a, "3000000", "30000", "2970000",
             "USD", {"3.00", "0.03", "2.97"}),
        line("refund", 6, "2026-03-03T18:00:00.000Z", 1, b, "-7", "0", "-7", "USD",
             {"-1.23", "0.00", "-1.23"}),
        line("payment", 7, "2026-03-02T08:00:00.000Z", 80002, a, "9", "0", "9", std::nullopt, {},
             "live"),
    };
    const auto write = [&](std::size_t from, std::size_t to) {
        pqxx::work tx(db);
        pg::insert_settlements(tx, {rows.begin() + static_cast<std::ptrdiff_t>(from),
                                    rows.begin() + static_cast<std::ptrdiff_t>(to)});
        tx.commit();
    };
    write(0, 4);
    write(2, 7);  // rows 3 and 4 again: kept once, counted once
    write(0, 7);  // every row again: nothing added
    EXPECT_EQ(count(db, "select count(*) from settlement_daily"), 7);  // 6 test keys, 1 live
    EXPECT_EQ(count(db, "select sum(payments + refunds) from settlement_daily"), 7);
    EXPECT_EQ(lines(db, kDailyRows, "prj_rollup"), lines(db, kDailyFromLines, "prj_rollup"));

    const auto at = [](const char* text) { return *domain::events::parse_rfc3339_millis(text); };
    const auto d1 = at("2026-03-01T00:00:00.000Z");
    const auto d2 = d1 + kDay;
    const auto d3 = d2 + kDay;
    // Whole days: every test-mode row, spelled out once.
    const auto all = expect_totals_equal(db, "prj_rollup", d1, d3 + kDay);
    ASSERT_EQ(all.tokens.size(), 2u) << describe(all);
    EXPECT_EQ(all.tokens[0].chain_id, 1u);
    EXPECT_EQ(all.tokens[0].payments, 1u);
    EXPECT_EQ(all.tokens[0].refunds, 1u);
    EXPECT_EQ(all.tokens[0].amount, rep::BigInt(0));
    EXPECT_EQ(all.tokens[1].symbol, "USDC");
    EXPECT_EQ(all.tokens[1].payments, 3u);
    EXPECT_EQ(all.tokens[1].refunds, 1u);
    EXPECT_EQ(all.tokens[1].paid, rep::BigInt(6000000));
    EXPECT_EQ(all.tokens[1].refunded, rep::BigInt(500000));
    EXPECT_EQ(all.tokens[1].amount, rep::BigInt(5500000));
    EXPECT_EQ(all.tokens[1].fees, rep::BigInt(60000));
    EXPECT_EQ(all.tokens[1].net, rep::BigInt(5440000));
    ASSERT_EQ(all.fiat.size(), 2u) << describe(all);
    EXPECT_EQ(all.fiat[0].currency, "THB");
    EXPECT_EQ(all.fiat[0].rows, 2u);
    EXPECT_EQ(all.fiat[0].amount, rep::BigInt(1750));
    EXPECT_EQ(all.fiat[1].currency, "USD");
    EXPECT_EQ(all.fiat[1].rows, 3u);
    EXPECT_EQ(all.fiat[1].net, rep::BigInt(296));
    expect_totals_equal(db, "prj_rollup", d2, d3);  // one whole day
    expect_totals_equal(db, "prj_rollup", d1 - 5 * kDay, d3 + 5 * kDay);
    // Partial days on both sides of whole ones, on one side only, and inside a single day.
    EXPECT_EQ(expect_totals_equal(db, "prj_rollup", d1 + 10 * 3600000, d3 + 12 * 3600000)
                  .tokens.at(1)
                  .payments,
              3u);
    expect_totals_equal(db, "prj_rollup", d1 + 1, d3);
    expect_totals_equal(db, "prj_rollup", d2, d3 + 1);
    expect_totals_equal(db, "prj_rollup", d2 + 1, d2 + 13 * 3600000);
    expect_totals_equal(db, "prj_rollup", d2 - 1, d2 + 1);  // the rows either side of midnight
    // One instant: the refund at midnight, the payment 1 ms after the next one.
    EXPECT_EQ(expect_totals_equal(db, "prj_rollup", d2, d2 + 1).tokens.at(0).refunds, 1u);
    EXPECT_EQ(expect_totals_equal(db, "prj_rollup", d3 + 1, d3 + 2).fiat.at(0).rows, 1u);
    // Empty: days before the rows, and an hour of a day with rows.
    EXPECT_EQ(expect_totals_equal(db, "prj_rollup", d1 - 2 * kDay, d1), rep::SettlementTotals{});
    EXPECT_EQ(expect_totals_equal(db, "prj_rollup", d1 + 11 * 3600000, d1 + 12 * 3600000),
              rep::SettlementTotals{});
}

// charge_paid_through (ADR 0275) kept by the projector's upsert over batches whose days come in
// any order: each row is the running sum of charge_paid_seconds, and the overview's histogram of
// any period (two rows subtracted) equals the period's rows summed, as the read before did.
TEST(PaidThroughTest, CumulativeRowsEqualTheDailyRowsSummedForEveryPeriod) {
    std::string missing;
    const auto env = stack_env(missing);
    if (!env) GTEST_SKIP() << "integration stack not configured: " << missing;
    const ScratchDatabase scratch(*env, "duepay_paid_through_test_" + std::to_string(getpid()));
    pqxx::connection db(scratch.url);
    using Mode = domain::events::Mode;
    const auto upsert = [&](std::vector<std::tuple<const char*, Mode, const char*, int, int>> in) {
        rep::StatsRows rows;
        for (const auto& [project, mode, day, bucket, n] : in)
            rows.paid_time[rep::PaidTimeKey{project, mode, day, bucket}] += n;
        pqxx::work tx(db);
        pg::upsert_charge_stats(tx, rows);
        tx.commit();
    };
    upsert({{"prj_a", Mode::test, "2026-03-01", 3, 2},
            {"prj_a", Mode::test, "2026-03-01", 20, 1},
            {"prj_a", Mode::test, "2026-03-03", 3, 1},
            {"prj_a", Mode::live, "2026-03-02", 5, 4},
            {"prj_b", Mode::test, "2026-03-02", 0, 7}});
    // A day between two rows (a new row copied from 03-01, 03-03 added to), then an earlier day
    // again and a later one in one batch.
    upsert({{"prj_a", Mode::test, "2026-03-02", 20, 2}});
    upsert({{"prj_a", Mode::test, "2026-03-01", 3, 1},
            {"prj_a", Mode::test, "2026-03-05", 231, 1},
            {"prj_b", Mode::test, "2026-02-27", 0, 1}});

    // Every row: the running sum per bucket of the daily rows up to its day.
    const auto rows = [&](const std::string& sql) {
        std::vector<std::string> out;
        pqxx::nontransaction tx(db);
        for (const auto& r : tx.exec(sql))
            out.push_back(r[0].as<std::string>() + "|" + r[1].as<std::string>() + "|" +
                          r[2].as<std::string>() + "|" + r[3].as<std::string>() + "|" +
                          r[4].as<std::string>());
        return out;
    };
    const auto stored = rows(
        "select t.project_id, t.mode, t.day, b.i - 1, t.charges[b.i] from charge_paid_through t, "
        "generate_subscripts(t.charges, 1) as b(i) where t.charges[b.i] <> 0 order by 1, 2, 3, 4");
    EXPECT_EQ(stored.size(), 12u);
    EXPECT_EQ(stored,
              rows("select k.project_id, k.mode, k.day, p.bucket, sum(p.charges) "
                   "from (select distinct project_id, mode, day from charge_paid_seconds) k "
                   "join charge_paid_seconds p on p.project_id = k.project_id and "
                   "p.mode = k.mode and p.day <= k.day group by 1, 2, 3, 4 order by 1, 2, 3, 4"));
    EXPECT_EQ(count(db, "select count(*) from charge_paid_through"), 7);

    // The overview's read of a period against the direct sum of its daily rows.
    const auto period = [&](const char* project, const char* first, const char* last) {
        pqxx::nontransaction tx(db);
        const auto read = pg::read_project_stats(tx, project, "test", first, last).paid_time;
        std::vector<std::pair<int, std::int64_t>> direct;
        for (const auto& r : tx.exec_params(
                 "select bucket, sum(charges)::bigint from charge_paid_seconds where project_id = "
                 "$1 and mode = 'test' and day between $2::date and $3::date group by 1 order by 1",
                 project, first, last)) {
            direct.emplace_back(r[0].as<int>(), r[1].as<std::int64_t>());
        }
        EXPECT_EQ(read, direct) << project << " " << first << ".." << last;
        return read;
    };
    using Buckets = std::vector<std::pair<int, std::int64_t>>;
    EXPECT_EQ(period("prj_a", "2026-03-01", "2026-03-01"), (Buckets{{3, 3}, {20, 1}}));
    EXPECT_EQ(period("prj_a", "2026-03-02", "2026-03-03"), (Buckets{{3, 1}, {20, 2}}));
    EXPECT_EQ(period("prj_a", "2026-03-02", "2026-03-10"), (Buckets{{3, 1}, {20, 2}, {231, 1}}));
    EXPECT_EQ(period("prj_a", "2026-02-01", "2026-03-31"), (Buckets{{3, 4}, {20, 3}, {231, 1}}));
    EXPECT_EQ(period("prj_a", "2026-03-04", "2026-03-04"), Buckets{});  // between rows
    EXPECT_EQ(period("prj_a", "2026-01-01", "2026-02-28"), Buckets{});  // before the first
    EXPECT_EQ(period("prj_b", "2026-02-28", "2026-03-02"), (Buckets{{0, 7}}));
    EXPECT_EQ(period("prj_c", "2026-01-01", "2026-12-31"), Buckets{});  // no rows at all
}

// The overview's read (read_project_stats: the period's daily rows, then one row holding the
// counts by status, the histogram and the webhook attempts) against each table read on its own, as
// the four statements before it read them: rows in both modes, a sum of more than 19 digits, days
// inside and outside the period, and a project without any row.
TEST(OverviewReadTest, TheOverviewsReadEqualsEachTableReadOnItsOwn) {
    std::string missing;
    const auto env = stack_env(missing);
    if (!env) GTEST_SKIP() << "integration stack not configured: " << missing;
    const ScratchDatabase scratch(*env, "duepay_overview_read_test_" + std::to_string(getpid()));
    pqxx::connection db(scratch.url);
    using Mode = domain::events::Mode;
    using domain::charge::Status;
    const auto usdt = *domain::evm::parse_address("0x5FbDB2315678afecb367f032d93F642f64180aa3");
    const auto usdc = *domain::evm::parse_address("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512");
    rep::StatsRows rows;
    const auto day = [&](Mode mode, const char* d, const domain::Address& token,
                         std::optional<domain::money::FiatCurrency> currency, int n,
                         const char* paid) {
        auto& c =
            rows.daily[rep::DailyKey{"prj_a", mode, d, domain::ChainId{80002}, token, currency}];
        c.token_symbol = token == usdt ? "USDT" : "USDC";
        c.token_decimals = 6;
        c.created = n;
        c.converted = n - 1;
        c.entered[2] = n - 1;
        c.payments = n;
        c.paid = rep::BigInt(paid);
        c.paid_fiat = currency ? rep::BigInt(35 * n) : rep::BigInt(0);
        c.refunds = n / 2;
        c.refunded = rep::BigInt(n * 1000);
        c.refunded_fiat = currency ? rep::BigInt(n) : rep::BigInt(0);
    };
    day(Mode::test, "2026-02-28", usdt, std::nullopt, 9, "9000000");  // before the period
    day(Mode::test, "2026-03-01", usdt, std::nullopt, 3, "3000000");
    day(Mode::test, "2026-03-01", usdt, domain::money::FiatCurrency::THB, 2, "2500000");
    day(Mode::test, "2026-03-01", usdc, std::nullopt, 4, "123456789012345678901234567");
    day(Mode::test, "2026-03-03", usdc, std::nullopt, 5, "7");
    day(Mode::live, "2026-03-02", usdt, std::nullopt, 6, "6000000");
    rows.statuses[rep::StatusKey{"prj_a", Mode::test, Status::paid}] = 11;
    rows.statuses[rep::StatusKey{"prj_a", Mode::test, Status::pending}] = 2;
    rows.statuses[rep::StatusKey{"prj_a", Mode::test, Status::expired}] = 5;
    rows.statuses[rep::StatusKey{"prj_a", Mode::live, Status::paid}] = 6;
    rows.paid_time[rep::PaidTimeKey{"prj_a", Mode::test, "2026-02-28", 7}] = 9;
    rows.paid_time[rep::PaidTimeKey{"prj_a", Mode::test, "2026-03-01", 7}] = 2;
    rows.paid_time[rep::PaidTimeKey{"prj_a", Mode::test, "2026-03-03", 40}] = 3;
    {
        pqxx::work tx(db);
        pg::upsert_charge_stats(tx, rows);
        tx.exec(
            "insert into webhook_attempt_stats (project_id, mode, day, attempts, succeeded) "
            "values ('prj_a', 'test', '2026-02-28', 100, 1), "
            "('prj_a', 'test', '2026-03-01', 10, 9), ('prj_a', 'test', '2026-03-03', 5, 2), "
            "('prj_a', 'live', '2026-03-02', 70, 70)");
        tx.commit();
    }
    // A query's rows as "a|b|", in its order.
    const auto text_rows = [](pqxx::transaction_base& tx, const std::string& sql,
                              const auto&... params) {
        std::vector<std::string> out;
        for (const auto& r : tx.exec_params(sql, params...)) {
            std::string line;
            for (const auto& f : r) line += std::string(f.c_str()) + "|";
            out.push_back(line);
        }
        return out;
    };
    const auto check = [&](const std::string& project, const std::string& first,
                           const std::string& last) {
        SCOPED_TRACE(project + " " + first + ".." + last);
        pqxx::nontransaction tx(db);
        const auto got = pg::read_project_stats(tx, project, "test", first, last);
        std::vector<std::string> daily;
        for (const auto& d : got.daily) {
            daily.push_back(std::to_string(d.day) + "|" + std::to_string(d.chain_id) + "|" +
                            d.token + "|" + d.fiat_currency + "|" + d.token_symbol + "|" +
                            std::to_string(d.token_decimals) + "|" + std::to_string(d.created) +
                            "|" + std::to_string(d.converted) + "|" +
                            std::to_string(d.entered_paid) + "|" + std::to_string(d.payments) +
                            "|" + d.paid_volume + "|" + d.paid_fiat + "|" +
                            std::to_string(d.refunds) + "|" + d.refunded_volume + "|");
        }
        EXPECT_EQ(daily, text_rows(tx,
                                   "select day - $2::date, chain_id, token, fiat_currency, "
                                   "token_symbol, token_decimals, created, converted, "
                                   "entered_paid, payments, paid_volume, paid_fiat, refunds, "
                                   "refunded_volume from charge_stats_daily where project_id = $1 "
                                   "and mode = 'test' and day between $2::date and $3::date "
                                   "order by day, chain_id, token collate \"C\", "
                                   "fiat_currency collate \"C\"",
                                   project, first, last));
        std::vector<std::string> statuses;
        for (const auto& [status, n] : got.statuses)
            statuses.push_back(status + "|" + std::to_string(n) + "|");
        EXPECT_EQ(statuses, text_rows(tx,
                                      "select status, charges from charge_status_counts where "
                                      "project_id = $1 and mode = 'test' order by status",
                                      project));
        std::vector<std::string> buckets;
        for (const auto& [bucket, n] : got.paid_time)
            buckets.push_back(std::to_string(bucket) + "|" + std::to_string(n) + "|");
        EXPECT_EQ(buckets, text_rows(tx,
                                     "select bucket, sum(charges) from charge_paid_seconds "
                                     "where project_id = $1 and mode = 'test' and day between "
                                     "$2::date and $3::date group by 1 order by 1",
                                     project, first, last));
        EXPECT_EQ(std::vector<std::string>{std::to_string(got.webhook_attempts) + "|" +
                                           std::to_string(got.webhook_succeeded) + "|"},
                  text_rows(tx,
                            "select coalesce(sum(attempts), 0), coalesce(sum(succeeded), 0) "
                            "from webhook_attempt_stats where project_id = $1 and mode = 'test' "
                            "and day between $2::date and $3::date",
                            project, first, last));
        return got;
    };
    const auto march = check("prj_a", "2026-03-01", "2026-03-31");
    EXPECT_EQ(march.daily.size(), 4u);
    EXPECT_EQ(march.daily[2].paid_volume, "123456789012345678901234567");
    EXPECT_EQ(march.statuses.size(), 3u);
    EXPECT_EQ(march.paid_time.size(), 2u);
    EXPECT_EQ(march.webhook_attempts, 15);
    EXPECT_EQ(check("prj_a", "2026-02-01", "2026-03-02").daily.size(), 4u);
    EXPECT_TRUE(check("prj_a", "2026-04-01", "2026-04-30").daily.empty());
    const auto none = check("prj_c", "2026-01-01", "2026-12-31");
    EXPECT_TRUE(none.statuses.empty());
    EXPECT_EQ(none.webhook_attempts, 0);

    // The adapter (PgProjectStats) over the same rows: each row on its day of the period, the sums
    // exact, one of them wider than 256 bits (numeric allows it; the projection's sums of 256-bit
    // amounts can reach it).
    const std::string wide = ((rep::BigInt(1) << 256) + 1).str();
    pqxx::nontransaction(db).exec_params(
        "update charge_stats_daily set paid_volume = $1::numeric where project_id = 'prj_a' and "
        "mode = 'test' and day = '2026-03-03'",
        wide);
    infra::postgres::ConnectionPool pool(scratch.url, 1);
    pg::PgProjectStats adapter(pool);
    const auto view =
        adapter.read({ports::ProjectId{"prj_a"}, Mode::test, "2026-03-01", "2026-03-31"});
    std::vector<std::string> rows_seen;
    for (const auto& d : view.days) {
        rows_seen.push_back(
            std::to_string(d.day) + " " + d.token_symbol + " " +
            (d.currency ? std::string(domain::money::to_string(*d.currency)) : "-") + " " +
            d.paid.str() + " " + d.paid_fiat.str() + " " + d.refunded.str());
    }
    EXPECT_EQ(rows_seen, (std::vector<std::string>{
                             "0 USDT - 3000000 0 3000",
                             "0 USDT THB 2500000 70 2000",
                             "0 USDC - 123456789012345678901234567 0 4000",
                             "2 USDC - " + wide + " 0 5000",
                         }));
    EXPECT_EQ(view.webhook_attempts, 15);
}

}  // namespace
}  // namespace duepay::tests
