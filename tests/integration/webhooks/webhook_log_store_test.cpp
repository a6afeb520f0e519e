// One endpoint's page of the dashboard (PgDashboardWebhooks::endpoint_log) against the real
// Postgres of the dev stack (DATABASE_URL): the endpoint found once, with the health counts that
// attempt_counts gives (the newest kHealthAttemptCap attempts of the last kHealthWindowHours),
// its log newest first with the timestamps to_char gave before (milliseconds truncated), paged by
// `before`; nothing for an endpoint of another project or mode. Each test makes its own endpoint.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "domain/hex.hpp"
#include "domain/webhooks/delivery_log.hpp"
#include "infra/postgres/pool.hpp"
#include "infra/postgres/webhook_endpoints.hpp"
#include "infra/random/random.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests::webhooks {
namespace {

using infra::postgres::ConnectionPool;
using infra::postgres::PgDashboardWebhooks;

// 24 random lower-case hex digits: the tail of a project or endpoint id.
std::string random_tail() { return domain::to_hex(infra::random::random_bytes<12>()).substr(2); }

class WebhookLogStoreIt : public ::testing::Test {
  protected:
    void SetUp() override {
        DUEPAY_REQUIRE_STACK(env);
        pool_ = std::make_unique<ConnectionPool>(env.database_url, 1, ConnectionPool::OnConnect{},
                                                 "webhook_log_store_test");
        store_ = std::make_unique<PgDashboardWebhooks>(*pool_);
        sql_ = std::make_unique<pqxx::connection>(env.database_url);
        project_ = ports::ProjectId{"prj_" + random_tail()};
        endpoint_ = "we_" + random_tail();
        exec("insert into webhook_endpoints (id, project_id, mode, url, events, secret) values ('" +
             endpoint_ + "', '" + project_.value +
             "', 'test', 'https://hooks.example/x', array['invoice.paid'], 'whsec_x')");
    }
    void TearDown() override {
        if (sql_) exec("delete from webhook_endpoints where id = '" + endpoint_ + "'");
    }

    pqxx::result exec(const std::string& sql) {
        pqxx::work tx(*sql_);
        auto r = tx.exec(sql);
        tx.commit();
        return r;
    }

    std::unique_ptr<ConnectionPool> pool_;
    std::unique_ptr<PgDashboardWebhooks> store_;
    std::unique_ptr<pqxx::connection> sql_;
    ports::ProjectId project_;
    std::string endpoint_;
};

TEST_F(WebhookLogStoreIt, EndpointLogCountsAndPagesAsTheSeparateReads) {
    // 1,010 attempts in the last 3 hours, n seconds * 10 ago, every 7th a 500 with a retry time
    // that has microseconds past its millisecond; and 5 more two days old, all delivered.
    exec(
        "insert into webhook_attempts (endpoint_id, event_id, event_type, attempt, attempted_at, "
        "response_status, latency_ms, next_retry_at) "
        "select '" +
        endpoint_ +
        "', 'evt_' || n, 'invoice.paid', 1, now() - n * interval '10 seconds', "
        "case when n % 7 = 0 then 500 else 200 end, 40, "
        "case when n % 7 = 0 then timestamptz '2026-11-28 01:02:03.123999+00' end "
        "from generate_series(0, 1009) n");
    exec(
        "insert into webhook_attempts (endpoint_id, event_id, event_type, attempt, attempted_at, "
        "response_status, latency_ms) select '" +
        endpoint_ +
        "', 'evt_old_' || n, 'invoice.paid', 1, now() - interval '2 days' - n * interval "
        "'1 second', 200, 40 from generate_series(1, 5) n");

    auto log = store_->endpoint_log(project_, ports::Mode::test, endpoint_, 26, std::nullopt);
    ASSERT_TRUE(log.has_value());
    EXPECT_EQ(log->endpoint.id, endpoint_);
    EXPECT_EQ(log->endpoint.url, "https://hooks.example/x");
    // The newest 1,000 (n = 0 .. 999): 143 of them (n = 0, 7, ..., 994) failed.
    EXPECT_EQ(log->counts.attempts, domain::webhooks::kHealthAttemptCap);
    EXPECT_EQ(log->counts.delivered, 1000 - 143);
    const auto counts = store_->attempt_counts({endpoint_});
    ASSERT_EQ(counts.size(), 1U);
    EXPECT_EQ(counts[0].second.attempts, log->counts.attempts);
    EXPECT_EQ(counts[0].second.delivered, log->counts.delivered);

    // The log: the 26 newest by id, each timestamp as to_char writes it.
    ASSERT_EQ(log->attempts.size(), 26U);
    const auto expected = exec(
        "select id, event_id, to_char(attempted_at at time zone 'UTC', "
        "'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), to_char(next_retry_at at time zone 'UTC', "
        "'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') from webhook_attempts where endpoint_id = '" +
        endpoint_ + "' order by id desc limit 52");
    for (std::size_t i = 0; i < 26; ++i) {
        const auto& a = log->attempts[i];
        const auto row = expected[static_cast<pqxx::result::size_type>(i)];
        EXPECT_EQ(a.id, row[0].as<std::int64_t>()) << i;
        EXPECT_EQ(a.event_id, row[1].as<std::string>()) << i;
        EXPECT_EQ(a.attempted_at, row[2].as<std::string>()) << i;
        if (row[3].is_null()) {
            EXPECT_FALSE(a.next_retry_at.has_value()) << i;
        } else {
            ASSERT_TRUE(a.next_retry_at.has_value()) << i;
            EXPECT_EQ(*a.next_retry_at, row[3].as<std::string>()) << i;
            EXPECT_EQ(*a.next_retry_at, "2026-11-28T01:02:03.123Z") << i;
        }
    }
    // The next page starts after the last attempt shown.
    auto next =
        store_->endpoint_log(project_, ports::Mode::test, endpoint_, 26, log->attempts.back().id);
    ASSERT_TRUE(next.has_value());
    ASSERT_EQ(next->attempts.size(), 26U);
    EXPECT_EQ(next->attempts.front().id, expected[26][0].as<std::int64_t>());
    EXPECT_EQ(next->attempts.back().id, expected[51][0].as<std::int64_t>());

    // Another project's or mode's endpoint is not found.
    EXPECT_FALSE(store_
                     ->endpoint_log(ports::ProjectId{"prj_" + random_tail()}, ports::Mode::test,
                                    endpoint_, 26, std::nullopt)
                     .has_value());
    EXPECT_FALSE(
        store_->endpoint_log(project_, ports::Mode::live, endpoint_, 26, std::nullopt).has_value());
}

TEST_F(WebhookLogStoreIt, EndpointWithoutRecentAttemptsHasZeroCounts) {
    exec(
        "insert into webhook_attempts (endpoint_id, event_id, event_type, attempt, attempted_at, "
        "response_status, latency_ms) values ('" +
        endpoint_ + "', 'evt_old', 'invoice.paid', 1, now() - interval '25 hours', 200, 40)");
    auto log = store_->endpoint_log(project_, ports::Mode::test, endpoint_, 26, std::nullopt);
    ASSERT_TRUE(log.has_value());
    EXPECT_EQ(log->counts.attempts, 0);
    EXPECT_EQ(log->counts.delivered, 0);
    EXPECT_EQ(log->attempts.size(), 1U);  // the log keeps what the health window leaves out
    EXPECT_TRUE(store_->attempt_counts({endpoint_}).empty());
}

}  // namespace
}  // namespace duepay::tests::webhooks
