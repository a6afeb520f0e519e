// Several dispatchers claiming from one webhook queue at once (label integration, the stack's
// Postgres, a database of its own so no other test's deliveries are claimed): eight threads, each
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
    const std::string name = "duepay_claim_race_" + std::to_string(getpid());
    const auto url = create_database(env, name);
    struct Drop {
        const StackEnv& env;
        std::string name;
        ~Drop() { drop_database(env, name); }
    } drop{env, name};
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

}  // namespace
}  // namespace duepay::tests
