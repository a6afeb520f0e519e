// GCRA rate limit and monthly quota against the real Postgres of the dev stack (DATABASE_URL).
// Every test uses its own project id; expected values are computed from the database clock.
#include "infra/postgres/rate_limiter.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "tests/integration/guards/guards_support.hpp"

namespace duepay::tests::guards {
namespace {

using infra::postgres::ConnectionPool;
using infra::postgres::CreationLimits;
using infra::postgres::LimitOutcome;
using infra::postgres::RateLimiter;

class RateLimiterIt : public ::testing::Test {
  protected:
    void SetUp() override {
        DUEPAY_REQUIRE_ENV(url, "DATABASE_URL");
        pool_ = std::make_unique<ConnectionPool>(url, 2);
        sql_ = std::make_unique<pqxx::connection>(url);
        project_ = unique_project("rl");
    }
    void TearDown() override {
        if (!sql_) return;
        pqxx::work tx(*sql_);
        tx.exec_params("delete from rate_limits where project_id = $1", project_);
        tx.exec_params("delete from monthly_usage where project_id = $1", project_);
        tx.commit();
    }
    // One value from the database (its own short transaction).
    std::string query(const std::string& sql) {
        pqxx::work tx(*sql_);
        auto r = tx.exec(sql);
        tx.commit();
        return r[0][0].is_null() ? "" : r[0][0].as<std::string>();
    }
    std::string clock() { return query("select clock_timestamp()::text"); }
    std::string tat() {
        return query(
            "select tat::text from rate_limits where limit_name = 'charge_create' and project_id = "
            "'" +
            project_ + "'");
    }
    long long ms_between(const std::string& later_expr, const std::string& earlier) {
        return std::stoll(query("select ceil(extract(epoch from ((" + later_expr + ") - '" +
                                earlier + "'::timestamptz)) * 1000)::bigint"));
    }

    std::unique_ptr<ConnectionPool> pool_;
    std::unique_ptr<pqxx::connection> sql_;
    std::string project_;
};

TEST_F(RateLimiterIt, FreePlanAllowsThirtyThenRefusesWithRetryAfterFromTheDbClock) {
    RateLimiter limiter(*pool_);
    const auto limits = infra::postgres::creation_limits_for_plan("free");
    ASSERT_EQ(limits.per_minute, 30);
    for (int i = 0; i < 30; ++i) {
        auto d = limiter.take_charge_creation(project_, limits);
        ASSERT_EQ(d.outcome, LimitOutcome::allowed) << "request " << i + 1;
        EXPECT_EQ(d.retry_after_ms, 0);
        EXPECT_EQ(d.month_count, i + 1);
    }
    const std::string tat_before = tat();
    const std::string c0 = clock();
    auto refused = limiter.take_charge_creation(project_, limits);
    const std::string c1 = clock();
    ASSERT_EQ(refused.outcome, LimitOutcome::rate_limited);
    EXPECT_EQ(tat(), tat_before) << "a refusal must not move the GCRA state";
    EXPECT_EQ(refused.month_count, 30) << "a refusal must not count against the quota";
    // Next allowed at tat + 2 s (emission interval 60/30) - 60 s (burst): retry = that - now.
    const std::string allowed_at =
        "'" + tat_before + "'::timestamptz + interval '2 s' - interval '60 s'";
    const long long from_decision = ms_between(allowed_at, refused.decided_at);
    EXPECT_NEAR(refused.retry_after_ms, from_decision, 1);
    const long long latest = ms_between(allowed_at, c0);    // clock read before the call
    const long long earliest = ms_between(allowed_at, c1);  // clock read after the call
    EXPECT_LE(refused.retry_after_ms, latest + 1);
    EXPECT_GE(refused.retry_after_ms, earliest - 1);
    EXPECT_GT(refused.retry_after_ms, 1000) << "30 quick requests leave almost 2 s to wait";
    EXPECT_LE(refused.retry_after_ms, 2000);

    // Just before the advertised time: still refused; at it: allowed.
    std::this_thread::sleep_for(std::chrono::milliseconds(refused.retry_after_ms - 300));
    auto early = limiter.take_charge_creation(project_, limits);
    EXPECT_EQ(early.outcome, LimitOutcome::rate_limited);
    std::this_thread::sleep_for(std::chrono::milliseconds(early.retry_after_ms));
    auto on_time = limiter.take_charge_creation(project_, limits);
    EXPECT_EQ(on_time.outcome, LimitOutcome::allowed)
        << "retryAfterMs " << early.retry_after_ms << " was too short";
}

TEST_F(RateLimiterIt, BurstFromEightThreadsOverTwoConnectionsNeverExceedsTheLimit) {
    RateLimiter limiter(*pool_);
    const CreationLimits limits{30, 8000};
    std::atomic<int> allowed{0}, refused{0};
    const auto start = std::chrono::steady_clock::now();
    const auto stop_at = start + std::chrono::milliseconds(3000);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&] {
            while (std::chrono::steady_clock::now() < stop_at) {
                auto d = limiter.take_charge_creation(project_, limits);
                (d.outcome == LimitOutcome::allowed ? allowed : refused)++;
            }
        });
    }
    for (auto& t : threads) t.join();
    const double elapsed_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // GCRA: a burst of 30, then one more every 2 s.
    const int bound = 30 + static_cast<int>(elapsed_s / 2.0) + 1;
    std::cout << "burst: " << allowed << " allowed, " << refused << " refused in " << elapsed_s
              << " s (bound " << bound << ")" << std::endl;
    EXPECT_GE(allowed.load(), 30);
    EXPECT_LE(allowed.load(), bound);
    EXPECT_GT(refused.load(), 0);
    EXPECT_EQ(std::stoi(query(
                  "select coalesce(sum(count), 0)::text from monthly_usage where project_id = '" +
                  project_ + "'")),
              allowed.load())
        << "the quota counter must count exactly the allowed creations";
}

TEST_F(RateLimiterIt, FreeQuotaExhaustionRefusesUntilTheNextUtcMonth) {
    RateLimiter limiter(*pool_);
    const auto limits = infra::postgres::creation_limits_for_plan("free");
    ASSERT_EQ(limits.monthly_quota, 8000);
    {
        pqxx::work tx(*sql_);
        tx.exec_params(
            "insert into monthly_usage (project_id, month, count) "
            "values ($1, date_trunc('month', clock_timestamp() at time zone 'UTC')::date, 7999)",
            project_);
        tx.commit();
    }
    auto last = limiter.take_charge_creation(project_, limits);
    ASSERT_EQ(last.outcome, LimitOutcome::allowed);
    EXPECT_EQ(last.month_count, 8000);
    const std::string tat_before = tat();
    const std::string c0 = clock();
    auto over = limiter.take_charge_creation(project_, limits);
    const std::string c1 = clock();
    ASSERT_EQ(over.outcome, LimitOutcome::quota_exceeded);
    EXPECT_EQ(over.month_count, 8000);
    EXPECT_EQ(tat(), tat_before) << "a quota refusal must not take a rate token";
    const std::string next_month = "(date_trunc('month', '" + over.decided_at +
                                   "'::timestamptz at time zone 'UTC') + interval '1 month') "
                                   "at time zone 'UTC'";
    EXPECT_NEAR(over.retry_after_ms, ms_between(next_month, over.decided_at), 1);
    EXPECT_LE(over.retry_after_ms, ms_between(next_month, c0) + 1);
    EXPECT_GE(over.retry_after_ms, ms_between(next_month, c1) - 1);
    EXPECT_GT(over.retry_after_ms, 0);
    EXPECT_LE(over.retry_after_ms, 31LL * 24 * 3600 * 1000);
    std::cout << "quota: retryAfterMs " << over.retry_after_ms << " (to "
              << query("select " + next_month + "::text") << ")" << std::endl;

    // A refund (the creation failed later) frees one unit again.
    limiter.refund_quota(domain::ProjectId{project_}, last.month);
    auto again = limiter.take_charge_creation(project_, limits);
    EXPECT_EQ(again.outcome, LimitOutcome::allowed);
    EXPECT_EQ(again.month_count, 8000);
}

TEST_F(RateLimiterIt, PaidPlansHaveNoQuotaAndTheirOwnRate) {
    RateLimiter limiter(*pool_);
    const auto pro = infra::postgres::creation_limits_for_plan("pro");
    EXPECT_EQ(pro.per_minute, 60);
    EXPECT_FALSE(pro.monthly_quota);
    EXPECT_EQ(infra::postgres::creation_limits_for_plan("scale").per_minute, 120);
    {
        pqxx::work tx(*sql_);
        tx.exec_params(
            "insert into monthly_usage (project_id, month, count) "
            "values ($1, date_trunc('month', clock_timestamp() at time zone 'UTC')::date, 1000000)",
            project_);
        tx.commit();
    }
    int allowed = 0;
    for (int i = 0; i < 61; ++i) {
        if (limiter.take_charge_creation(project_, pro).outcome == LimitOutcome::allowed) ++allowed;
    }
    EXPECT_EQ(allowed, 60);
}

}  // namespace
}  // namespace duepay::tests::guards
