// The charges list's live feed (api/dashboard/live_charges.hpp) with the in-memory store and a
// scripted ChargeChanges: which waiting pages hear of which change, when a wait answers at once,
// and that nothing is read from the store while nobody watches.
#include "api/dashboard/live_charges.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>

#include "tests/doubles/dashboard_store.hpp"

namespace duepay::api::dashboard {
namespace {

using namespace std::chrono_literals;
using ports::Mode;
using ports::ProjectId;

// Hands the feed's callbacks to the test, which calls them as the Postgres listener would.
class ScriptedChanges final : public ports::ChargeChanges {
  public:
    struct Sub final : Subscription {};
    std::unique_ptr<Subscription> subscribe(OnChanged on_changed,
                                            std::function<void()> on_missed) override {
        changed = std::move(on_changed);
        missed = std::move(on_missed);
        return std::make_unique<Sub>();
    }
    OnChanged changed;
    std::function<void()> missed;
};

// One waiting request's answer, when it comes.
struct Answer {
    std::mutex m;
    std::optional<ApiResponse> r;
    Responder responder() {
        return [this](ApiResponse a) {
            std::lock_guard lock(m);
            r = std::move(a);
        };
    }
    std::optional<ApiResponse> get() {
        std::lock_guard lock(m);
        return r;
    }
    // Waits up to 3 s for the answer.
    std::optional<ApiResponse> await() {
        for (int i = 0; i < 300 && !get(); ++i) std::this_thread::sleep_for(10ms);
        return get();
    }
};

class LiveChargesTest : public ::testing::Test {
  protected:
    void SetUp() override {
        store.charge_owners["0xa1"] = {ProjectId{"prj_a"}, Mode::test};
        store.charge_owners["0xa2"] = {ProjectId{"prj_a"}, Mode::live};
        store.charge_owners["0xb1"] = {ProjectId{"prj_b"}, Mode::test};
        LiveChargesSettings s;
        s.batch = 20ms;
        s.stream_seconds = 1;
        s.max_streams = 3;
        live = std::make_unique<LiveCharges>(
            &changes, store, [this] { return now_ms.load(); }, s);
        live->start();
    }
    void TearDown() override { live->stop(); }

    testing::DashboardStoreDouble store;
    ScriptedChanges changes;
    std::atomic<std::int64_t> now_ms{5'000};
    std::unique_ptr<LiveCharges> live;
};

TEST_F(LiveChargesTest, AChangeWakesTheWaitersOfItsProjectAndModeOnly) {
    Answer a_test, a_live, b_test;
    live->wait(ProjectId{"prj_a"}, Mode::test, 5'000, a_test.responder());
    live->wait(ProjectId{"prj_a"}, Mode::live, 5'000, a_live.responder());
    live->wait(ProjectId{"prj_b"}, Mode::test, 5'000, b_test.responder());
    EXPECT_EQ(live->waiting(), 3U);
    now_ms = 6'000;
    changes.changed("0xa1");
    auto r = a_test.await();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->headers.at("content-type"), "text/event-stream");
    EXPECT_EQ(r->body, LiveCharges::changed_event(6'000));
    std::this_thread::sleep_for(100ms);
    EXPECT_FALSE(a_live.get()) << "the other mode's list did not change";
    EXPECT_FALSE(b_test.get()) << "another project's list did not change";
    EXPECT_EQ(live->waiting(), 2U);
    live->stop();  // answers the waits still held while their Answers live
}

TEST_F(LiveChargesTest, AClientBehindTheLastChangeIsAnsweredAtOnce) {
    Answer first;
    live->wait(ProjectId{"prj_b"}, Mode::test, 5'000, first.responder());
    now_ms = 7'000;
    changes.changed("0xb1");
    ASSERT_TRUE(first.await());
    // A page rendered before the change (since 6,500) hears of it on connecting; one rendered
    // after it (7,000, the id it was sent) waits.
    Answer behind, current;
    live->wait(ProjectId{"prj_b"}, Mode::test, 6'500, behind.responder());
    live->wait(ProjectId{"prj_b"}, Mode::test, 7'000, current.responder());
    ASSERT_TRUE(behind.get());
    EXPECT_EQ(behind.get()->body, LiveCharges::changed_event(7'000));
    EXPECT_FALSE(current.get());
    live->stop();
}

TEST_F(LiveChargesTest, APageOlderThanTheProcessRereadsOnce) {
    Answer old;
    live->wait(ProjectId{"prj_a"}, Mode::test, 4'999, old.responder());
    ASSERT_TRUE(old.get());
    EXPECT_NE(old.get()->body.find("event: changed"), std::string::npos);
}

TEST_F(LiveChargesTest, AWaitEndsWithAKeepAliveWhenNothingChanges) {
    Answer a;
    live->wait(ProjectId{"prj_a"}, Mode::test, 5'000, a.responder());
    auto r = a.await();  // stream_seconds is 1
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body, LiveCharges::keep_alive());
    EXPECT_EQ(r->body.find("event:"), std::string::npos);
}

TEST_F(LiveChargesTest, MissedNotificationsWakeEveryWaiter) {
    Answer a, b;
    live->wait(ProjectId{"prj_a"}, Mode::test, 5'000, a.responder());
    live->wait(ProjectId{"prj_b"}, Mode::test, 5'000, b.responder());
    changes.missed();
    ASSERT_TRUE(a.await());
    ASSERT_TRUE(b.await());
    EXPECT_NE(a.get()->body.find("event: changed"), std::string::npos);
}

TEST_F(LiveChargesTest, BeyondMaxStreamsAWaitIsAnsweredWithRetry) {
    Answer a, b, c, d;
    for (auto* x : {&a, &b, &c}) live->wait(ProjectId{"prj_a"}, Mode::test, 5'000, x->responder());
    live->wait(ProjectId{"prj_a"}, Mode::test, 5'000, d.responder());
    ASSERT_TRUE(d.get()) << "the fourth wait is over max_streams";
    EXPECT_EQ(d.get()->body, LiveCharges::keep_alive());
    EXPECT_EQ(live->waiting(), 3U);
    live->stop();
}

TEST_F(LiveChargesTest, StopAnswersEveryWaiter) {
    Answer a;
    live->wait(ProjectId{"prj_a"}, Mode::test, 5'000, a.responder());
    live->stop();
    ASSERT_TRUE(a.get());
    EXPECT_EQ(a.get()->body, LiveCharges::keep_alive());
}

TEST(LiveChargesIdle, NobodyWatchingMeansNoStoreRead) {
    testing::DashboardStoreDouble store;
    store.charge_owners["0xa1"] = {ProjectId{"prj_a"}, Mode::test};
    ScriptedChanges changes;
    LiveChargesSettings s;
    s.batch = 10ms;
    LiveCharges live(
        &changes, store, [] { return std::int64_t{5'000}; }, s);
    live.start();
    for (int i = 0; i < 20; ++i) changes.changed("0xa1");
    std::this_thread::sleep_for(100ms);
    live.stop();
    EXPECT_EQ(store.scope_reads, 0);
}

TEST(LiveChargesSince, LastEventIdFirstThenTheSinceParameter) {
    ApiRequest r;
    r.query = "since=1700000000000";
    EXPECT_EQ(LiveCharges::since_of(r), 1'700'000'000'000);
    r.headers["last-event-id"] = "1700000000123";
    EXPECT_EQ(LiveCharges::since_of(r), 1'700'000'000'123);
    for (const char* bad : {"", "-1", "12x", "1e3", "99999999999999999999999"}) {
        ApiRequest q;
        q.query = std::string("since=") + bad;
        EXPECT_FALSE(LiveCharges::since_of(q)) << bad;
    }
    EXPECT_FALSE(LiveCharges::since_of(ApiRequest{}));
}

}  // namespace
}  // namespace duepay::api::dashboard
