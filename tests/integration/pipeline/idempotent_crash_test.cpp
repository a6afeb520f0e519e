// ADR 0091 on the real stack: the api process dies after the broker acknowledged a create
// (kill -9 while it waits for the projection, `duepay api` runs without a projector), and the
// client's retry with the same Idempotency-Key gets the 201 of THAT charge: the topic never
// holds a second charge for the key, and the read model has exactly one.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <pqxx/pqxx>
#include <set>
#include <thread>

#include "domain/events/event_json.hpp"
#include "domain/hex.hpp"
#include "infra/kafka/topic_admin.hpp"
#include "infra/postgres/account_store.hpp"
#include "infra/random/key_material.hpp"
#include "infra/random/random.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests {
namespace {

constexpr const char* kPayout = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
constexpr const char* kBody = R"({"chainId":80002,"amount":"4242","paymentMode":"wallet"})";

TEST(IdempotentCrashIt, ARetryAfterACrashPastTheAckAnswersTheSameChargeNotASecondOne) {
    DUEPAY_REQUIRE_STACK(env);
    const auto suffix = unique_suffix();
    const std::string project =
        "prj_it_crash_" + domain::to_hex(infra::random::random_bytes<6>()).substr(2);
    const std::string key =
        "dp_test_" + domain::to_hex(infra::random::random_bytes<24>()).substr(2);
    {
        pqxx::connection conn(env.database_url);
        pqxx::work tx(conn);
        infra::postgres::upsert_project(
            tx, {project, "crash past the ack", "pro", std::string(kPayout)});
        infra::postgres::upsert_api_key(tx, "key_" + project, project, "test",
                                        infra::random::sha256(key), key.substr(0, 12));
        tx.commit();
    }
    const std::string topic = "duepay.test.idemcrash." + suffix;
    infra::kafka::ensure_topic(env.kafka_bootstrap, topic, 2, std::chrono::seconds(20));
    const int port = free_port();
    const std::string base = "http://127.0.0.1:" + std::to_string(port);
    const std::map<std::string, std::string> vars{
        {"DUEPAY_TOPIC", topic},
        {"DUEPAY_PROJECTOR_GROUP", "duepay-test-idemcrash-" + suffix},
        {"DUEPAY_LISTEN", "127.0.0.1:" + std::to_string(port)},
        {"DUEPAY_CHECKOUT_URL", base},
        {"DUEPAY_IDEMPOTENCY_LOCK_SECONDS", "2"}};
    const std::map<std::string, std::string> headers{
        {"x-api-key", key}, {"content-type", "application/json"}, {"idempotency-key", "order-77"}};

    HttpResponse first;
    {
        // The api role alone: the create is acked by Kafka, then waits up to 5 s for a projection
        // that no projector will make. It is killed inside that window.
        Process api({duepay_binary(), "api"}, vars, "/tmp/duepay-idemcrash-api-" + suffix + ".log");
        ASSERT_TRUE(wait_until(
            [&] { return http("GET", base + "/healthz", {}).status == 200 || !api.alive(); },
            std::chrono::seconds(30)))
            << api.log();
        std::thread client(
            [&] { first = http("POST", base + "/v1/invoices", headers, kBody, 20000); });
        const auto acked = read_topic(env.kafka_bootstrap, topic, 1, std::chrono::seconds(4));
        api.kill_hard();
        client.join();
        ASSERT_EQ(acked.size(), 1u) << "the create was not in the topic before the kill\n"
                                    << api.log();
    }
    EXPECT_EQ(first.status, 0) << "the client got an answer before the crash: " << first.body;

    // Restart as `duepay dev` (api + projector); the retry comes after the 2 s lock timeout.
    auto dev = std::make_unique<Process>(std::vector<std::string>{duepay_binary(), "dev"}, vars,
                                         "/tmp/duepay-idemcrash-dev-" + suffix + ".log");
    ASSERT_TRUE(wait_until(
        [&] { return http("GET", base + "/healthz", {}).status == 200 || !dev->alive(); },
        std::chrono::seconds(30)))
        << dev->log();
    std::this_thread::sleep_for(std::chrono::milliseconds(2200));
    auto retry = http("POST", base + "/v1/invoices", headers, kBody);
    ASSERT_EQ(retry.status, 201) << retry.body << "\n" << dev->log();
    rapidjson::Document d;
    d.Parse(retry.body.c_str());
    const std::string invoice = d["data"]["invoiceId"].GetString();

    // The topic: every charge.created of this run is the one charge (a re-append, if the
    // projector had not caught up, carries the same event id and invoice id).
    const auto messages = read_topic(env.kafka_bootstrap, topic, 1, std::chrono::seconds(5));
    std::set<std::string> invoices;
    std::set<std::string> event_ids;
    for (const auto& m : messages) {
        auto event = domain::events::decode_event(m.value);
        ASSERT_TRUE(event) << m.value;
        invoices.insert(domain::to_hex(event->invoice_id));
        event_ids.insert(event->id);
    }
    EXPECT_EQ(invoices, std::set<std::string>{invoice});
    EXPECT_EQ(event_ids.size(), 1u);
    // The read model: one charge for the project.
    ASSERT_TRUE(
        wait_until([&] { return count_charges(env, project) >= 1; }, std::chrono::seconds(10)));
    EXPECT_EQ(count_charges(env, project), 1);
    // And the key now replays that 201.
    auto replay = http("POST", base + "/v1/invoices", headers, kBody);
    EXPECT_EQ(replay.status, 201);
    EXPECT_EQ(replay.body, retry.body);
    EXPECT_EQ(dev->stop(), 0);
}

// Something calls the purge: every api process deletes expired keys at start and then every
// DUEPAY_IDEMPOTENCY_PURGE_SECONDS, in bounded batches, from its own loop thread.
TEST(IdempotencyPurgeIt, TheApiRolePurgesExpiredKeysPeriodically) {
    DUEPAY_REQUIRE_STACK(env);
    const std::string project =
        "prj_it_purge_" + domain::to_hex(infra::random::random_bytes<6>()).substr(2);
    auto insert_expired = [&](const std::string& key) {
        pqxx::connection conn(env.database_url);
        pqxx::work tx(conn);
        tx.exec_params(
            "insert into idempotency_keys (project_id, key, fingerprint, state, locked_until, "
            "created_at, "
            "expires_at) values ($1, $2, '\\x00', 'completed', now(), now() - interval '2 days', "
            "now() - interval '1 day')",
            project, key);
        tx.commit();
    };
    auto count = [&] {
        pqxx::connection conn(env.database_url);
        pqxx::nontransaction tx(conn);
        return tx
            .exec_params1("select count(*) from idempotency_keys where project_id = $1", project)[0]
            .as<int>();
    };
    insert_expired("old-1");
    auto server = start_dev_server(env, "purge", 1, {{"DUEPAY_IDEMPOTENCY_PURGE_SECONDS", "1"}});
    ASSERT_TRUE(server.process->alive()) << server.process->log();
    EXPECT_TRUE(wait_until([&] { return count() == 0; }, std::chrono::seconds(10)))
        << "not purged at start";
    insert_expired("old-2");  // and again one period later
    EXPECT_TRUE(wait_until([&] { return count() == 0; }, std::chrono::seconds(10)))
        << "not purged periodically";
    EXPECT_EQ(server.process->stop(), 0);
}

}  // namespace
}  // namespace duepay::tests
