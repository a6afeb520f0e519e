// The dashboard's store (infra/accounts/pg_dashboard) against the real Postgres of the dev stack
// (DATABASE_URL): the reads every signed-in page makes (the session touch, the membership, the
// keys list) run as prepared statements outside an explicit transaction, and answer as before.
// Each test opens its own project and session.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "infra/accounts/pg_dashboard.hpp"
#include "infra/random/key_material.hpp"

namespace duepay::tests::accounts {
namespace {

using infra::accounts::PgDashboard;
using infra::postgres::ConnectionPool;

std::string random_hex(std::size_t digits) {
    static std::mt19937_64 rng{std::random_device{}()};
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < digits; ++i) out += kHex[rng() % 16];
    return out;
}

class DashboardStoreIt : public ::testing::Test {
  protected:
    void SetUp() override {
        const char* url = std::getenv("DATABASE_URL");
        if (url == nullptr || *url == '\0') {
            GTEST_SKIP() << "integration stack not configured: DATABASE_URL is not set (source "
                            "var/dev.env, or run `make test`)";
        }
        // One connection: the statements a call prepared are visible on the next lease.
        pool_ = std::make_unique<ConnectionPool>(
            url, 1, infra::accounts::prepare_dashboard_statements, "dashboard_store_test");
        store_ = std::make_unique<PgDashboard>(*pool_, std::vector<std::uint8_t>(32, 7));
        sql_ = std::make_unique<pqxx::connection>(url);
        address_ = "0x" + random_hex(40);
        token_ = infra::random::sha256(random_hex(64));
    }

    // One value from the database, in its own transaction.
    std::string query(const std::string& sql) {
        pqxx::work tx(*sql_);
        auto r = tx.exec(sql);
        tx.commit();
        return r[0][0].is_null() ? "" : r[0][0].as<std::string>();
    }
    // The statements prepared on the pool's one connection.
    std::set<std::string> prepared() {
        auto conn = pool_->lease();
        pqxx::nontransaction tx(*conn);
        std::set<std::string> out;
        for (const auto& r : tx.exec("select name from pg_prepared_statements"))
            out.insert(r[0].as<std::string>());
        return out;
    }

    std::unique_ptr<ConnectionPool> pool_;
    std::unique_ptr<PgDashboard> store_;
    std::unique_ptr<pqxx::connection> sql_;
    std::string address_;
    ports::TokenHash token_{};
};

TEST_F(DashboardStoreIt, TouchFindsALiveSessionAndWritesLastSeenOnlyWhenDue) {
    ports::SessionLimits limits;  // idle 1800 s: a touch is due after 30 s
    const auto opened = store_->open_session(token_, address_, "csrf-" + random_hex(8), limits);

    auto seen = store_->touch_session(token_, limits);
    ASSERT_TRUE(seen.has_value());
    EXPECT_EQ(seen->id, opened.id);
    EXPECT_EQ(seen->address, address_);
    EXPECT_EQ(seen->csrf, opened.csrf);
    EXPECT_TRUE(prepared().contains("dashboard_touch_session"));

    // Seen 10 s ago: not due, the row is left alone.
    const std::string id = "'" + opened.id + "'";
    query("update dashboard_sessions set last_seen_at = now() - interval '10 seconds' where id = " +
          id + " returning 1");
    const auto before = query("select last_seen_at::text from dashboard_sessions where id = " + id);
    ASSERT_TRUE(store_->touch_session(token_, limits).has_value());
    EXPECT_EQ(query("select last_seen_at::text from dashboard_sessions where id = " + id), before);

    // Seen 60 s ago: due, and the update is committed (read from another connection).
    query("update dashboard_sessions set last_seen_at = now() - interval '60 seconds' where id = " +
          id + " returning 1");
    ASSERT_TRUE(store_->touch_session(token_, limits).has_value());
    EXPECT_EQ(query("select now() - last_seen_at < interval '5 seconds' from dashboard_sessions "
                    "where id = " +
                    id),
              "t");

    // Idle longer than the timeout, or ended: no session.
    query("update dashboard_sessions set last_seen_at = now() - interval '1 hour' where id = " +
          id + " returning 1");
    EXPECT_FALSE(store_->touch_session(token_, limits).has_value());
    query("update dashboard_sessions set last_seen_at = now() where id = " + id + " returning 1");
    store_->end_session(opened.id);
    EXPECT_FALSE(store_->touch_session(token_, limits).has_value());
    EXPECT_FALSE(store_->touch_session(infra::random::sha256(random_hex(64)), limits).has_value());
}

TEST_F(DashboardStoreIt, ConcurrentTouchesOfOneDueSessionAllFindIt) {
    ports::SessionLimits limits;
    auto pool = std::make_unique<ConnectionPool>(std::getenv("DATABASE_URL"), 4,
                                                 infra::accounts::prepare_dashboard_statements,
                                                 "dashboard_store_test_4");
    PgDashboard store(*pool, {});
    const auto opened = store.open_session(token_, address_, "csrf", limits);
    query(
        "update dashboard_sessions set last_seen_at = now() - interval '60 seconds' where id = '" +
        opened.id + "' returning 1");
    std::vector<int> found(8, 0);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < found.size(); ++i) {
        threads.emplace_back([&, i] {
            auto s = store.touch_session(token_, limits);
            found[i] = s && s->id == opened.id ? 1 : 0;
        });
    }
    for (auto& t : threads) t.join();
    for (std::size_t i = 0; i < found.size(); ++i) EXPECT_EQ(found[i], 1) << "touch " << i;
    EXPECT_EQ(query("select now() - last_seen_at < interval '5 seconds' from dashboard_sessions "
                    "where id = '" +
                    opened.id + "'"),
              "t");
}

TEST_F(DashboardStoreIt, MembershipAndKeysAnswerThroughPreparedStatements) {
    const ports::DashboardActor actor{address_, "ses_test"};
    const auto project = store_->create_project("store test " + random_hex(6), actor);
    const auto created = store_->create_key(project.project_id, ports::Mode::test, actor);

    auto member = store_->membership(project.project_id, address_);
    ASSERT_TRUE(member.has_value());
    EXPECT_EQ(member->project_id.value, project.project_id.value);
    EXPECT_EQ(member->name, project.name);
    EXPECT_EQ(member->role, ports::MemberRole::owner);
    EXPECT_EQ(member->created_at, project.created_at);
    EXPECT_FALSE(store_->membership(project.project_id, "0x" + random_hex(40)).has_value());

    const auto keys = store_->keys(project.project_id);
    bool listed = false;
    for (const auto& k : keys) {
        if (k.id != created.key.id) continue;
        listed = true;
        EXPECT_EQ(k.prefix, created.key.prefix);
        EXPECT_EQ(k.mode, ports::Mode::test);
        EXPECT_TRUE(k.active);
        EXPECT_TRUE(k.revealable);  // derived from this store's secret
    }
    EXPECT_TRUE(listed) << "the new key is not in the list";

    const auto names = prepared();
    EXPECT_TRUE(names.contains("dashboard_membership"));
    EXPECT_TRUE(names.contains("dashboard_keys"));
}

}  // namespace
}  // namespace duepay::tests::accounts
