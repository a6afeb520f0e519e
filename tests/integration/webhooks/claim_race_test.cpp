// The webhook queue against the stack's Postgres (label integration), each test in a database of
// its own so no other test's deliveries are claimed. Several dispatchers claiming from one queue
// at once: eight threads, each
// with its own connection, claim and record as fast as they can; every delivery must be claimed
// exactly once. Before the claim re-checked that a row is due on its newest version, a claim whose
// snapshot predated another's commit leased the same rows again (a double send; ADR 0100).
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <pqxx/pqxx>
#include <random>
#include <thread>

#include "infra/postgres/webhook_store.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests {
namespace {

namespace pg = infra::postgres;

constexpr int kEndpoints = 4;
constexpr int kEvents = 300;  // 1,200 deliveries
constexpr int kDispatchers = 8;

void fill_queue(const std::string& url) {
    pqxx::connection c(url);
    pqxx::work tx(c);
    for (int e = 0; e < kEndpoints; ++e) {
        tx.exec_params(
            "insert into webhook_endpoints (id, project_id, mode, url, events, secret) values "
            "($1, 'prj_race', 'test', 'https://example.com/h', '{invoice.paid}', 'whsec_x')",
            "we_race" + std::to_string(e));
    }
    tx.exec_params(
        "insert into webhook_events (id, type, project_id, mode, body, occurred_at) "
        "select 'evt_race' || n, 'invoice.paid', 'prj_race', 'test', '{}', now() "
        "from generate_series(1, $1) n",
        kEvents);
    tx.exec(
        "insert into webhook_deliveries (endpoint_id, event_id) "
        "select e.id, ev.id from webhook_endpoints e cross join webhook_events ev");
    tx.commit();
}

TEST(WebhookClaimRace, EightDispatchersClaimEveryDeliveryExactlyOnce) {
    DUEPAY_REQUIRE_STACK(env);
    const ScopedDatabase db(env, "duepay_claim_race_" + std::to_string(getpid()));
    const auto& url = db.url;
    fill_queue(url);

    std::mutex mutex;
    std::map<std::string, int> claimed;  // endpoint|event -> claims
    std::atomic<int> distinct{0};        // deliveries claimed at least once
    constexpr int kTotal = kEndpoints * kEvents;
    std::vector<std::thread> dispatchers;
    for (int d = 0; d < kDispatchers; ++d) {
        dispatchers.emplace_back([&, d] {
            pqxx::connection c(url);
            std::mt19937_64 rng(static_cast<std::uint64_t>(d) + 1);
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
            while (distinct < kTotal && std::chrono::steady_clock::now() < deadline) {
                const auto token = static_cast<std::int64_t>(rng() >> 1);
                std::vector<pg::ClaimedDelivery> got;
                {
                    pqxx::work tx(c);
                    got =
                        pg::claim_webhook_deliveries(tx, 5, 1000, std::chrono::seconds(30), token);
                    tx.commit();
                }
                if (got.empty()) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(2));
                    continue;
                }
                std::vector<pg::AttemptOutcome> outcomes;
                {
                    std::lock_guard lock(mutex);
                    for (const auto& g : got) {
                        if (++claimed[g.endpoint_id + "|" + g.event_id] == 1) ++distinct;
                    }
                }
                for (const auto& g : got) {
                    pg::AttemptOutcome o;
                    o.endpoint_id = g.endpoint_id;
                    o.event_id = g.event_id;
                    o.event_type = g.event_type;
                    o.attempt = g.attempts + 1;
                    o.response_status = 200;
                    o.delivered = true;
                    o.lease_token = g.lease_token;
                    outcomes.push_back(o);
                }
                pqxx::work tx(c);
                pg::record_webhook_attempts(tx, outcomes);
                tx.commit();
            }
        });
    }
    for (auto& t : dispatchers) t.join();

    std::size_t twice = 0;
    for (const auto& [key, n] : claimed) {
        if (n != 1 && ++twice <= 5) ADD_FAILURE() << key << " claimed " << n << " times";
    }
    EXPECT_EQ(twice, 0u);
    EXPECT_EQ(claimed.size(), static_cast<std::size_t>(kTotal));
    pqxx::connection c(url);
    pqxx::read_transaction tx(c);
    EXPECT_EQ(tx.exec1("select count(*) from webhook_attempts")[0].as<int>(), kTotal);
    EXPECT_EQ(tx.exec1("select count(*) from webhook_deliveries where state = 'delivered' and "
                       "attempts = 1")[0]
                  .as<int>(),
              kTotal);
    // The overview's success rate counted every attempt once, under eight writers (ADR 0245).
    const auto stats = tx.exec1(
        "select coalesce(sum(attempts), 0)::int, coalesce(sum(succeeded), 0)::int from "
        "webhook_attempt_stats where project_id = 'prj_race' and mode = 'test'");
    EXPECT_EQ(stats[0].as<int>(), kTotal);
    EXPECT_EQ(stats[1].as<int>(), kTotal);
}

// Listens on webhook_deliveries while it lives.
class DueListener final : public pqxx::notification_receiver {
  public:
    explicit DueListener(pqxx::connection& c)
        : pqxx::notification_receiver(c, "webhook_deliveries") {}
    void operator()(const std::string&, int) override {}
};

// The notifications `listener` got within `wait`.
int notifications(pqxx::connection& listener, std::chrono::milliseconds wait) {
    int n = 0;
    const auto until = std::chrono::steady_clock::now() + wait;
    while (std::chrono::steady_clock::now() < until) n += listener.await_notification(0, 50'000);
    return n;
}

// The dispatcher claims when a delivery becomes due now (migration 0265, ADR 0265): a new
// delivery and a redelivery notify the channel once per transaction; a claim (a lease) and a
// recorded retry (due later) do not, so a dispatcher never wakes itself.
TEST(WebhookQueueNotify, DueDeliveriesNotifyAndLeasesAndRetriesDoNot) {
    DUEPAY_REQUIRE_STACK(env);
    const ScopedDatabase db(env, "duepay_queue_notify_" + std::to_string(getpid()));
    pqxx::connection listener(db.url);
    DueListener listening(listener);
    pqxx::connection c(db.url);
    const auto run = [&](const auto& work) {
        pqxx::work tx(c);
        work(tx);
        tx.commit();
    };
    const auto quiet = std::chrono::milliseconds(300);

    run([](pqxx::work& tx) {
        tx.exec(
            "insert into webhook_endpoints (id, project_id, mode, url, events, secret) values "
            "('we_n1', 'prj_n', 'test', 'https://example.com/h', '{invoice.paid}', 'whsec_x'), "
            "('we_n2', 'prj_n', 'test', 'https://example.com/h', '{invoice.paid}', 'whsec_x')");
    });
    EXPECT_EQ(notifications(listener, quiet), 0) << "an endpoint alone is not a delivery";

    pg::WebhookEventRow row;
    row.id = "evt_n1";
    row.type = "invoice.paid";
    row.project_id = "prj_n";
    row.mode = "test";
    row.invoice_id = "inv_n1";
    row.charge_event_id = "ce_n1";
    row.body = "{}";
    run([&](pqxx::work& tx) { EXPECT_EQ(pg::enqueue_webhook_event(tx, row), 2u); });
    EXPECT_EQ(notifications(listener, quiet), 1) << "two deliveries, one transaction, one wake-up";

    std::vector<pg::ClaimedDelivery> got;
    run([&](pqxx::work& tx) {
        got = pg::claim_webhook_deliveries(tx, 10, 10, std::chrono::seconds(30), 7);
    });
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(notifications(listener, quiet), 0) << "a claim must not wake the dispatchers";

    std::vector<pg::AttemptOutcome> outcomes;
    for (const auto& g : got) {
        pg::AttemptOutcome o;
        o.endpoint_id = g.endpoint_id;
        o.event_id = g.event_id;
        o.event_type = g.event_type;
        o.attempt = 1;
        o.response_status = 500;
        o.retry_in = std::chrono::seconds(60);
        o.lease_token = g.lease_token;
        outcomes.push_back(o);
    }
    run([&](pqxx::work& tx) { pg::record_webhook_attempts(tx, outcomes); });
    EXPECT_EQ(notifications(listener, quiet), 0) << "a retry due in a minute is not due now";

    run([&](pqxx::work& tx) {
        EXPECT_TRUE(pg::redeliver_webhook_event(tx, "prj_n", "test", "evt_n1", "we_n1"));
    });
    EXPECT_EQ(notifications(listener, quiet), 1) << "a redelivery is due now";
}

}  // namespace
}  // namespace duepay::tests
