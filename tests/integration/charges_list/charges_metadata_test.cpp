// The charges list's metadata filter against the real Postgres of the dev stack (DATABASE_URL),
// through the api's port (PgChargeReader). The charges are a temporary table `charges` of the
// pool's one connection (it hides the stack's own for that session, so nothing else is touched):
// 30,000 charges with values that match one charge, exactly the probe's cap, one more than the
// cap, a third of the project, only the oldest 1,200, nothing, and only another project. The table
// has statistics for every column but the metadata, so the planner assumes 1 % of the rows match
// any value: the kind of estimate that made the bench walk the whole project for one order id
// (docs/adr/0300). Each value, alone and with the other filters, is paged with the cursor to the
// end and every page must equal the same slice of a reference list (`metadata ->> key = value`,
// ordered by created_at desc, invoice_id desc); EXPLAIN shows the old statement walking while the
// probe reads the GIN index.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "infra/error.hpp"
#include "infra/postgres/api_ports.hpp"
#include "infra/postgres/charge_store.hpp"
#include "infra/postgres/pool.hpp"

namespace duepay::tests {
namespace {

using infra::postgres::kMetadataProbeCap;
using Query = ports::ChargeListQuery;

constexpr int kCharges = 30000;
constexpr const char* kProject = "prj_it_meta";
constexpr const char* kOther = "prj_it_meta_other";
// Charge g was created at kBaseUs - (g / 2) seconds: two charges a second, so pages cross ties
// that only the invoice id orders.
constexpr std::int64_t kBaseUs = 1767225600LL * 1000000;  // 2026-01-01T00:00:00Z
std::int64_t created_us_of(int g) { return kBaseUs - static_cast<std::int64_t>(g / 2) * 1000000; }

// The session's own `charges` (pg_temp comes first in the search path), with the indexes of the
// real one, filled: g in 1..30,000 in test mode with order_id ord-g; channel web/pos/app (10,000
// each); tier gold for g % 30 = 0 (1,000: the cap) and silver for g % 30 = 1 and g = 2 (1,001);
// campaign old for the 1,200 oldest. The same project in live mode (100) and another project
// (100, channel tv) hold values this one's test mode never shows.
void seed_session(pqxx::connection& conn) {
    pqxx::work tx(conn);
    tx.exec("create temporary table charges (like public.charges including all)");
    tx.exec_params(
        "insert into charges (invoice_id, project_id, mode, chain_id, status, amount, token, "
        "payment_mode, merchant, fee_bps, deadline, reference, amount_confirmed, timeline, "
        "event_count, last_event_id, created_at, updated_at, metadata) "
        "select '0x' || encode(sha256(convert_to(p || ':' || m || ':' || g, 'UTF8')), 'hex'), "
        "p, m, case when g % 2 = 0 then 80002 else 137 end, "
        "case when g % 10 < 6 then 'paid' when g % 10 < 8 then 'expired' else 'pending' end, "
        "1000, '0x5FbDB2315678afecb367f032d93F642f64180aa3', 'wallet', "
        "'0x70997970C51812dc3A010C7d01b50e0d17dc79C8', 100, 1767229200, 'ref-' || (g % 7), 0, "
        "'[]'::jsonb, 1, 'it-' || g, at, at, "
        "jsonb_build_object('order_id', 'ord-' || g, 'channel', "
        "case when p = $2::text then 'tv' else (array['web', 'pos', 'app'])[1 + g % 3] end) "
        "|| case when g % 30 = 0 then '{\"tier\": \"gold\"}'::jsonb "
        "when g % 30 = 1 or g = 2 then '{\"tier\": \"silver\"}'::jsonb else '{}' end "
        "|| case when g > $3::int - 1200 then '{\"campaign\": \"old\"}'::jsonb else '{}' end "
        "from (values ($1::text, 'test', $3::int), ($1, 'live', 100), ($2::text, 'test', 100)) "
        "v(p, m, n) "
        "cross join lateral generate_series(1, n) g "
        "cross join lateral (select timestamptz 'epoch' + ($4::bigint - (g / 2)::bigint * 1000000) "
        "* interval '1 microsecond' as at) t",
        kProject, kOther, kCharges, kBaseUs);
    // Statistics of every column but the metadata (autovacuum never analyzes a temporary table):
    // the planner then assumes 1 % of the rows match any metadata value.
    tx.exec("alter table charges alter column metadata set statistics 0");
    tx.exec("analyze charges");
    tx.commit();
}

struct Filter {
    const char* name;
    std::function<void(Query&)> set;
    std::string sql;  // the same filter for the reference list
};

class ChargesMetadata : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        const char* url = std::getenv("DATABASE_URL");
        if (url == nullptr || *url == '\0') return;
        pool_ = std::make_unique<infra::postgres::ConnectionPool>(url, 1, seed_session);
        reader_ = std::make_unique<infra::postgres::PgChargeReader>(*pool_);
    }
    static void TearDownTestSuite() {
        reader_.reset();
        pool_.reset();
    }
    void SetUp() override {
        if (!pool_)
            GTEST_SKIP() << "integration stack not configured: DATABASE_URL is not set (source "
                            "var/dev.env, or run `make test`)";
    }

    template <class F>
    static auto on_the_session(F&& work) {
        return pool_->with_connection([&](pqxx::connection& conn) {
            pqxx::work tx(conn);
            return work(tx);
        });
    }

    Query query(const std::string& key, const std::string& value) const {
        Query q;
        q.project_id = domain::ProjectId{kProject};
        q.mode = domain::events::Mode::test;
        q.metadata_json = "{\"" + key + "\": \"" + value + "\"}";
        return q;
    }

    // Every matching invoice id, newest first, by another route than the list's.
    std::vector<std::string> reference(const std::string& key, const std::string& value,
                                       const std::string& filter) const {
        return on_the_session([&](pqxx::work& tx) {
            auto rows = tx.exec_params(
                "select invoice_id from charges where project_id = $1 and mode = 'test' and "
                "metadata ->> $2 = $3" +
                    filter + " order by created_at desc, invoice_id desc",
                kProject, key, value);
            std::vector<std::string> out;
            for (const auto& r : rows) out.push_back(r[0].as<std::string>());
            return out;
        });
    }

    // Pages of `page` charges through the port, each next one from the previous page's last
    // charge, until a page comes back short; each must be the reference's next slice.
    void expect_pages(const std::string& key, const std::string& value, const Filter& filter,
                      std::size_t page) {
        SCOPED_TRACE(key + "=" + value + " " + filter.name + " page " + std::to_string(page));
        const auto expected = reference(key, value, filter.sql);
        auto q = query(key, value);
        filter.set(q);
        q.limit = page;
        std::vector<std::string> seen;
        for (int n = 0; n < 1000; ++n) {
            auto rows = reader_->list(q);
            for (const auto& r : rows) seen.push_back(r.charge.invoice_id);
            const std::size_t at = seen.size() - rows.size();
            ASSERT_LE(seen.size(), expected.size());
            for (std::size_t i = at; i < seen.size(); ++i) ASSERT_EQ(seen[i], expected[i]) << i;
            if (rows.size() < page) break;
            q.after = Query::After{rows.back().created_us, rows.back().charge.invoice_id};
        }
        EXPECT_EQ(seen.size(), expected.size());
    }

    static std::vector<Filter> filters() {
        const std::int64_t from = created_us_of(3000);
        const std::int64_t before = created_us_of(1000);
        auto range = [](std::int64_t us) {
            return "timestamptz 'epoch' + " + std::to_string(us) + " * interval '1 microsecond'";
        };
        return {
            {"none", [](Query&) {}, ""},
            {"status=paid", [](Query& q) { q.status = domain::charge::Status::paid; },
             " and status = 'paid'"},
            {"chain 137", [](Query& q) { q.chain_id = 137; }, " and chain_id = 137"},
            {"reference ref-3", [](Query& q) { q.reference = "ref-3"; },
             " and reference = 'ref-3'"},
            {"created range",
             [=](Query& q) {
                 q.created_gte_us = from;
                 q.created_lt_us = before;
             },
             " and created_at >= " + range(from) + " and created_at < " + range(before)},
            {"paid in the range",
             [=](Query& q) {
                 q.status = domain::charge::Status::paid;
                 q.created_gte_us = from;
             },
             " and status = 'paid' and created_at >= " + range(from)},
        };
    }

    static inline std::unique_ptr<infra::postgres::ConnectionPool> pool_;
    static inline std::unique_ptr<infra::postgres::PgChargeReader> reader_;
};

TEST_F(ChargesMetadata, TheSeedHoldsTheCountsTheCasesNeed) {
    // Without these the cases below would not cross the cap where they mean to.
    EXPECT_EQ(reference("order_id", "ord-1234", "").size(), 1u);
    EXPECT_EQ(reference("tier", "gold", "").size(), kMetadataProbeCap);
    EXPECT_EQ(reference("tier", "silver", "").size(), kMetadataProbeCap + 1);
    EXPECT_EQ(reference("channel", "web", "").size(), 10000u);
    EXPECT_EQ(reference("campaign", "old", "").size(), 1200u);
    EXPECT_TRUE(reference("channel", "tv", "").empty());
    EXPECT_FALSE(reference("tier", "silver", " and status = 'paid' and chain_id = 137").empty());
    // Statistics for the project and the mode, none for the metadata (the 1 % guess).
    EXPECT_EQ(on_the_session([](pqxx::work& tx) {
                  return tx
                      .exec(
                          "select string_agg(attname, ',' order by attname) from pg_stats "
                          "where tablename = 'charges' and schemaname like 'pg_temp%' and "
                          "attname in ('metadata', 'mode', 'project_id')")[0][0]
                      .as<std::string>();
              }),
              "mode,project_id");
}

TEST_F(ChargesMetadata, EveryValueAndFilterPagesExactlyAsTheReference) {
    const std::vector<std::pair<std::string, std::string>> values = {
        {"order_id", "ord-1234"},  // one charge
        {"tier", "gold"},          // exactly the cap: sorted from the probe
        {"tier", "silver"},        // one more: the walk, then the probe for the later pages
        {"channel", "web"},        // a third of the project: the budget's newest charges
        {"campaign", "old"},       // only the oldest: the walk crosses 28,800 charges first
        {"channel", "fax"},        // nothing anywhere
        {"channel", "tv"},         // only in another project
    };
    for (const auto& [key, value] : values) {
        for (const auto& filter : filters()) expect_pages(key, value, filter, 100);
    }
    expect_pages("tier", "silver", filters()[0], 20);
    expect_pages("order_id", "ord-1234", filters()[0], 1);
}

TEST_F(ChargesMetadata, TwoKeysCombineAndTheLiveModeIsApart) {
    auto q = query("tier", "gold");
    q.metadata_json = R"({"tier": "gold", "order_id": "ord-600"})";
    auto rows = reader_->list(q);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].created_us, created_us_of(600));
    q.mode = domain::events::Mode::live;
    q.metadata_json = R"({"tier": "silver"})";
    q.limit = 100;
    EXPECT_EQ(reader_->list(q).size(), 5u);  // g = 1, 2, 31, 61, 91 of the live 100
}

TEST_F(ChargesMetadata, OutsideATransactionTheListIsRefused) {
    pool_->with_connection([&](pqxx::connection& conn) {
        pqxx::nontransaction tx(conn);
        EXPECT_THROW(infra::postgres::list_charges(tx, query("order_id", "ord-1")),
                     infra::InfraError);
    });
}

// With the 1 % guess, the statement the list ran before (the walk's, planned freely) walks the
// project for one order id. The budget walks the newest charges, a bounded number. The probe, after
// its settings, reads the GIN index and neither walks nor reads the table; the walk, after its own,
// reads an index in the page's order, unsorted.
TEST_F(ChargesMetadata, TheProbeReadsTheGinIndexWhereTheOldStatementWalked) {
    on_the_session([&](pqxx::work& tx) {
        const auto gin = tx.exec(
                               "select c.relname from pg_index i join pg_class c on c.oid = "
                               "i.indexrelid join pg_am a on a.oid = c.relam where i.indrelid = "
                               "'charges'::regclass and a.amname = 'gin'")[0][0]
                             .as<std::string>();
        auto explain = [&](const infra::postgres::MetadataListSql& sql,
                           const std::string& statement) {
            std::string plan;
            for (const auto& r : tx.exec_params("explain " + statement,
                                                pqxx::prepare::make_dynamic_params(sql.params)))
                plan += r[0].as<std::string>() + "\n";
            return plan;
        };
        const auto one = infra::postgres::metadata_list_sql(tx, query("order_id", "ord-1234"));
        const auto old_plan = explain(one, one.walk);
        EXPECT_NE(old_plan.find("Index Scan Backward"), std::string::npos) << old_plan;
        EXPECT_EQ(old_plan.find(gin), std::string::npos) << old_plan;
        // The budget reads the newest charges in order, as many as it names.
        const auto budget_plan = explain(one, one.budget);
        EXPECT_NE(budget_plan.find("Index Scan Backward"), std::string::npos) << budget_plan;
        EXPECT_NE(
            budget_plan.find("rows=" + std::to_string(infra::postgres::kMetadataWalkBudget * 21)),
            std::string::npos)
            << budget_plan;

        tx.exec(one.probe_settings);
        const auto probe_plan = explain(one, one.probe);
        EXPECT_NE(probe_plan.find("Bitmap Index Scan on " + gin), std::string::npos) << probe_plan;
        EXPECT_EQ(probe_plan.find("Seq Scan"), std::string::npos) << probe_plan;
        EXPECT_EQ(probe_plan.find("Index Scan Backward"), std::string::npos) << probe_plan;

        const auto web = infra::postgres::metadata_list_sql(tx, query("channel", "web"));
        tx.exec(web.walk_settings);
        const auto walk_plan = explain(web, web.walk);
        EXPECT_NE(walk_plan.find("Index Scan Backward"), std::string::npos) << walk_plan;
        EXPECT_EQ(walk_plan.find(gin), std::string::npos) << walk_plan;
        EXPECT_EQ(walk_plan.find("Sort"), std::string::npos) << walk_plan;
    });
}

}  // namespace
}  // namespace duepay::tests
