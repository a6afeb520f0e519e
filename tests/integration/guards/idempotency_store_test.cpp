// Idempotency keys against the real Postgres of the dev stack (DATABASE_URL): one winner among 50
// concurrent claimants, byte-identical replays, mismatch, abandon, takeover and expiry.
#include "infra/postgres/idempotency_store.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <thread>
#include <vector>

#include "api/http/idempotency_key.hpp"
#include "infra/error.hpp"
#include "tests/integration/guards/guards_support.hpp"

namespace duepay::tests::guards {
namespace {

using api::request_fingerprint;
using domain::ProjectId;
using infra::postgres::BeginOutcome;
using infra::postgres::ConnectionPool;
using infra::postgres::IdempotencySettings;
using infra::postgres::IdempotencyStore;
using infra::postgres::StoredResponse;

TEST(IdempotencyKey, ValidatesLengthAndVisibleAscii) {
    EXPECT_TRUE(api::parse_idempotency_key("a"));
    EXPECT_TRUE(api::parse_idempotency_key(std::string(255, 'k')));
    EXPECT_TRUE(api::parse_idempotency_key("order-42_retry!~"));
    for (const std::string& bad :
         {std::string(), std::string(256, 'k'), std::string("has space"), std::string("tab\t"),
          std::string("caf\xc3\xa9"), std::string("nl\n")}) {
        auto r = api::parse_idempotency_key(bad);
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().code, "invalid_idempotency_key");
    }
}

TEST(IdempotencyKey, FingerprintCoversMethodPathAndBody) {
    const auto a = request_fingerprint("POST", "/v1/invoices", R"({"amount":"1"})");
    EXPECT_EQ(a, request_fingerprint("POST", "/v1/invoices", R"({"amount":"1"})"));
    EXPECT_NE(a, request_fingerprint("POST", "/v1/invoices", R"({"amount":"2"})"));
    EXPECT_NE(a, request_fingerprint("POST", "/v1/other", R"({"amount":"1"})"));
}

class IdempotencyIt : public ::testing::Test {
  protected:
    void SetUp() override {
        DUEPAY_REQUIRE_ENV(url, "DATABASE_URL");
        url_ = url;
        pool_ = std::make_unique<ConnectionPool>(url, 8);
        project_ = unique_project("idem");
    }
    void TearDown() override {
        if (url_.empty()) return;
        pqxx::connection c(url_);
        pqxx::work tx(c);
        tx.exec_params("delete from idempotency_keys where project_id = $1", project_);
        tx.commit();
    }
    void sql(const std::string& statement) {
        pqxx::connection c(url_);
        pqxx::work tx(c);
        tx.exec_params(statement, project_);
        tx.commit();
    }
    std::string url_;
    std::unique_ptr<ConnectionPool> pool_;
    std::string project_;
    const infra::random::Digest32 fp_ =
        request_fingerprint("POST", "/v1/invoices", R"({"chainId":80002})");
};

TEST_F(IdempotencyIt, FiftyConcurrentBeginsHaveExactlyOneOwnerThenAllReplayTheSameBytes) {
    IdempotencyStore store(*pool_);
    constexpr int kThreads = 50;
    std::barrier start(kThreads);
    std::atomic<int> created{0}, in_flight{0}, other{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
        threads.emplace_back([&] {
            start.arrive_and_wait();
            auto r = store.begin(ProjectId{project_}, "key-concurrent", fp_);
            if (r.outcome == BeginOutcome::created) {
                ++created;
            } else if (r.outcome == BeginOutcome::in_flight) {
                ++in_flight;
            } else {
                ++other;
            }
        });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(created.load(), 1);
    EXPECT_EQ(in_flight.load(), kThreads - 1);
    EXPECT_EQ(other.load(), 0);

    StoredResponse response;
    response.status = 201;
    response.headers = {{"content-type", "application/json"}, {"x-request-id", "req-1"}};
    // Bytes that a text round trip could damage: UTF-8, a NUL, a backslash, a CR.
    response.body = std::string(R"({"success":true,"data":{"reference":"caf)") + "\xc3\xa9" + "\\" +
                    '\0' + "\r" + R"("},"error":null})";
    ASSERT_TRUE(store.complete(ProjectId{project_}, "key-concurrent", fp_, response));

    std::vector<std::optional<StoredResponse>> replays(kThreads);
    std::vector<BeginOutcome> outcomes(kThreads);
    threads.clear();
    for (int i = 0; i < kThreads; ++i) {
        threads.emplace_back([&, i] {
            start.arrive_and_wait();
            auto r = store.begin(ProjectId{project_}, "key-concurrent", fp_);
            outcomes[i] = r.outcome;
            replays[i] = r.response;
        });
    }
    for (auto& t : threads) t.join();
    for (int i = 0; i < kThreads; ++i) {
        ASSERT_EQ(outcomes[i], BeginOutcome::replay) << i;
        ASSERT_TRUE(replays[i]);
        EXPECT_EQ(*replays[i], response) << i;
    }
}

TEST_F(IdempotencyIt, SameKeyWithAnotherBodyIsAMismatchInFlightAndAfter) {
    IdempotencyStore store(*pool_);
    const auto other = request_fingerprint("POST", "/v1/invoices", R"({"chainId":137})");
    ASSERT_EQ(store.begin(ProjectId{project_}, "k", fp_).outcome, BeginOutcome::created);
    EXPECT_EQ(store.begin(ProjectId{project_}, "k", other).outcome, BeginOutcome::mismatch);
    ASSERT_TRUE(store.complete(ProjectId{project_}, "k", fp_, StoredResponse{201, {}, "{}"}));
    EXPECT_EQ(store.begin(ProjectId{project_}, "k", other).outcome, BeginOutcome::mismatch);
    EXPECT_EQ(store.begin(ProjectId{project_}, "k", fp_).outcome, BeginOutcome::replay);
    // Keys are scoped to the project: the same key elsewhere is a new request.
    const std::string elsewhere = project_ + "_b";
    EXPECT_EQ(store.begin(ProjectId{elsewhere}, "k", other).outcome, BeginOutcome::created);
    store.abandon(ProjectId{elsewhere}, "k", other);
}

TEST_F(IdempotencyIt, AbandonFreesTheKeyAndFailuresAreNeverStored) {
    IdempotencyStore store(*pool_);
    ASSERT_EQ(store.begin(ProjectId{project_}, "retry-me", fp_).outcome, BeginOutcome::created);
    EXPECT_THROW(
        store.complete(ProjectId{project_}, "retry-me", fp_, StoredResponse{503, {}, "{}"}),
        infra::InfraError);
    store.abandon(ProjectId{project_}, "retry-me", fp_);
    EXPECT_EQ(store.begin(ProjectId{project_}, "retry-me", fp_).outcome, BeginOutcome::created);
    EXPECT_EQ(store.begin(ProjectId{project_}, "retry-me", fp_).outcome, BeginOutcome::in_flight);
}

TEST_F(IdempotencyIt, AnInFlightRowPastTheLockTimeoutIsTakenOver) {
    IdempotencyStore store(*pool_,
                           IdempotencySettings{std::chrono::hours(24), std::chrono::seconds(1)});
    ASSERT_EQ(store.begin(ProjectId{project_}, "crashed", fp_).outcome, BeginOutcome::created);
    EXPECT_EQ(store.begin(ProjectId{project_}, "crashed", fp_).outcome, BeginOutcome::in_flight);
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    EXPECT_EQ(store.begin(ProjectId{project_}, "crashed", fp_).outcome, BeginOutcome::created);
}

TEST_F(IdempotencyIt, CompletedRowsLiveTwentyFourHoursThenExpireAndArePurged) {
    IdempotencyStore store(*pool_);
    ASSERT_EQ(store.begin(ProjectId{project_}, "old", fp_).outcome, BeginOutcome::created);
    ASSERT_TRUE(store.complete(ProjectId{project_}, "old", fp_, StoredResponse{201, {}, "first"}));
    {
        pqxx::connection c(url_);
        pqxx::work tx(c);
        auto r = tx.exec_params(
            "select extract(epoch from expires_at - completed_at)::bigint from idempotency_keys "
            "where project_id = $1 and key = 'old'",
            project_);
        EXPECT_EQ(r[0][0].as<long long>(), 24 * 3600);
        tx.commit();
    }
    sql("update idempotency_keys set expires_at = clock_timestamp() - interval '1 second' where "
        "project_id = $1");
    // An expired key is a new request again.
    EXPECT_EQ(store.begin(ProjectId{project_}, "old", fp_).outcome, BeginOutcome::created);
    ASSERT_EQ(store.begin(ProjectId{project_}, "gone", fp_).outcome, BeginOutcome::created);
    sql("update idempotency_keys set expires_at = clock_timestamp() - interval '1 second' where "
        "project_id = $1");
    EXPECT_GE(store.purge_expired(), 2);
    pqxx::connection c(url_);
    pqxx::work tx(c);
    EXPECT_EQ(tx.exec_params("select count(*) from idempotency_keys where project_id = $1",
                             project_)[0][0]
                  .as<int>(),
              0);
}

}  // namespace
}  // namespace duepay::tests::guards

namespace duepay::tests::guards {
namespace {

using infra::postgres::PreparedCreate;

// Unknown outcomes (ADR 0091) on the real store: a key bound to a prepared charge is never freed by
// a failure and is resumed, with the exact bytes, by the next request with the same body.
class BoundIdempotencyIt : public IdempotencyIt {};

TEST_F(BoundIdempotencyIt, AnUnlockedBoundKeyIsResumedOnceWithTheSameEventBytes) {
    IdempotencyStore store(*pool_);
    ASSERT_EQ(store.begin(ProjectId{project_}, "bound", fp_).outcome, BeginOutcome::created);
    const PreparedCreate prepared{"0x" + std::string(64, 'a'),
                                  std::string("{\"id\":\"e1\"}\0x", 13), "{\"body\":1}"};
    ASSERT_TRUE(store.prepare(ProjectId{project_}, "bound", fp_, prepared));
    EXPECT_FALSE(store.prepare(ProjectId{project_}, "bound", fp_, prepared)) << "bound twice";
    // Still locked by its owner: a concurrent retry is in flight, not a new charge.
    EXPECT_EQ(store.begin(ProjectId{project_}, "bound", fp_).outcome, BeginOutcome::in_flight);
    store.unlock(ProjectId{project_}, "bound", fp_);
    // Another body with the key: refused, bound or not.
    const auto other = request_fingerprint("POST", "/v1/invoices", R"({"chainId":137})");
    EXPECT_EQ(store.begin(ProjectId{project_}, "bound", other).outcome, BeginOutcome::mismatch);
    auto resumed = store.begin(ProjectId{project_}, "bound", fp_);
    ASSERT_EQ(resumed.outcome, BeginOutcome::resume);
    ASSERT_TRUE(resumed.prepared);
    EXPECT_EQ(*resumed.prepared, prepared);
    // Exactly one resumer: the next one sees it in flight again.
    EXPECT_EQ(store.begin(ProjectId{project_}, "bound", fp_).outcome, BeginOutcome::in_flight);
    ASSERT_TRUE(store.complete(ProjectId{project_}, "bound", fp_, StoredResponse{201, {}, "done"}));
    EXPECT_EQ(store.begin(ProjectId{project_}, "bound", fp_).outcome, BeginOutcome::replay);
}

TEST_F(BoundIdempotencyIt, ABoundKeyOfACrashedOwnerIsResumedAfterTheLockTimeoutNeverReclaimed) {
    IdempotencyStore store(*pool_,
                           IdempotencySettings{std::chrono::hours(24), std::chrono::seconds(1)});
    ASSERT_EQ(store.begin(ProjectId{project_}, "crash", fp_).outcome, BeginOutcome::created);
    ASSERT_TRUE(
        store.prepare(ProjectId{project_}, "crash", fp_, PreparedCreate{"0x01", "event", "body"}));
    // The owner dies without unlock or complete (a crash past the broker's ack).
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    auto resumed = store.begin(ProjectId{project_}, "crash", fp_);
    ASSERT_EQ(resumed.outcome, BeginOutcome::resume) << "a new claim would create a second charge";
    EXPECT_EQ(resumed.prepared->event, "event");
}

TEST_F(BoundIdempotencyIt, PurgeIsBoundedPerCall) {
    IdempotencyStore store(*pool_);
    for (int i = 0; i < 5; ++i) {
        std::string key = "p";  // appended, not "p" + …: GCC 12 -Wrestrict misfires on that here
        key += std::to_string(i);
        ASSERT_EQ(store.begin(ProjectId{project_}, key, fp_).outcome, BeginOutcome::created);
    }
    sql("update idempotency_keys set expires_at = clock_timestamp() - interval '1 second' where "
        "project_id = $1");
    // Other expired rows of the shared database may exist: the bound holds for them too.
    EXPECT_EQ(store.purge_expired(2), 2);
    EXPECT_LE(store.purge_expired(2), 2);
    while (store.purge_expired(1000) == 1000) {
    }
    pqxx::connection c(url_);
    pqxx::work tx(c);
    EXPECT_EQ(tx.exec_params("select count(*) from idempotency_keys where project_id = $1",
                             project_)[0][0]
                  .as<int>(),
              0);
}

}  // namespace
}  // namespace duepay::tests::guards

namespace duepay::tests::guards {
namespace {

using infra::postgres::IdempotencyHolder;
using infra::postgres::PreparedCreate;

// A crashed holder (ADR 0219): a key whose holder's session is gone is taken over (unbound) or
// resumed (bound) at once, long before its lock timeout; a live holder keeps it.
class HolderIdempotencyIt : public IdempotencyIt {
  protected:
    static constexpr IdempotencySettings kLongLock{std::chrono::hours(24), std::chrono::hours(1)};
};

TEST_F(HolderIdempotencyIt, KeysOfAHolderWhoseSessionIsGoneAreFreeAtOnceLiveOnesAreNot) {
    auto dying = std::make_unique<IdempotencyHolder>(url_);
    IdempotencyHolder living(url_);
    dying->maintain();
    living.maintain();
    ASSERT_NE(dying->id(), 0);
    ASSERT_NE(living.id(), 0);
    ASSERT_NE(dying->id(), living.id());
    IdempotencyStore crashed(*pool_, kLongLock, dying.get());
    IdempotencyStore retry(*pool_, kLongLock, &living);
    IdempotencyStore no_holder(*pool_, kLongLock);
    const ProjectId project{project_};
    ASSERT_EQ(crashed.begin(project, "unbound", fp_).outcome, BeginOutcome::created);
    ASSERT_EQ(crashed.begin(project, "bound", fp_).outcome, BeginOutcome::created);
    const PreparedCreate prepared{"0x02", "event bytes", "201 body"};
    ASSERT_TRUE(crashed.prepare(project, "bound", fp_, prepared));
    ASSERT_EQ(no_holder.begin(project, "leased", fp_).outcome, BeginOutcome::created);
    {
        pqxx::connection c(url_);
        pqxx::work tx(c);
        auto r = tx.exec_params(
            "select key, coalesce(holder, 0) from idempotency_keys where project_id = $1 "
            "order by key",
            project_);
        ASSERT_EQ(r.size(), 3u);
        EXPECT_EQ(r[0][1].as<int>(), dying->id());  // bound
        EXPECT_EQ(r[1][1].as<int>(), 0);            // leased
        EXPECT_EQ(r[2][1].as<int>(), dying->id());  // unbound
    }
    // The holder is alive: every key stays in flight.
    EXPECT_EQ(retry.begin(project, "unbound", fp_).outcome, BeginOutcome::in_flight);
    EXPECT_EQ(retry.begin(project, "bound", fp_).outcome, BeginOutcome::in_flight);
    EXPECT_EQ(retry.begin(project, "leased", fp_).outcome, BeginOutcome::in_flight);
    living.maintain();  // a healthy session is kept, with its id
    const auto living_id = living.id();
    EXPECT_NE(living_id, 0);

    dying.reset();  // the session closes as a killed process's socket would
    // The backend releases the lock as it exits, a moment after the close: poll (bounded).
    BeginOutcome unbound = BeginOutcome::in_flight;
    for (int i = 0; i < 200 && unbound == BeginOutcome::in_flight; ++i) {
        unbound = retry.begin(project, "unbound", fp_).outcome;
        if (unbound == BeginOutcome::in_flight) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
    EXPECT_EQ(unbound, BeginOutcome::created) << "the dead holder's unbound key was not taken over";
    auto resumed = retry.begin(project, "bound", fp_);
    ASSERT_EQ(resumed.outcome, BeginOutcome::resume) << "a new claim would create a second charge";
    ASSERT_TRUE(resumed.prepared);
    EXPECT_EQ(*resumed.prepared, prepared);
    // Now held by the living holder: in flight again for anyone else.
    EXPECT_EQ(no_holder.begin(project, "bound", fp_).outcome, BeginOutcome::in_flight);
    EXPECT_EQ(no_holder.begin(project, "unbound", fp_).outcome, BeginOutcome::in_flight);
    // A row without a holder keeps its lease (lock_timeout) alone.
    EXPECT_EQ(retry.begin(project, "leased", fp_).outcome, BeginOutcome::in_flight);
    EXPECT_EQ(living.id(), living_id);
}

}  // namespace
}  // namespace duepay::tests::guards
