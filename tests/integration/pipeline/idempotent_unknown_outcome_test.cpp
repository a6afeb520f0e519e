// ADR 0091 on the real stack, the unknown outcome itself: the dev broker is frozen
// (SIGSTOP) while a create with an Idempotency-Key is in flight, so the producer sends the record
// and never hears back: 503 event_log_outcome_unknown. The broker then resumes (SIGCONT) and
// writes the record it had received. The client's retry with the same key must answer 201 for
// THAT charge: the topic holds one invoice id and one event id, the read model one charge.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>

#include <fstream>
#include <pqxx/pqxx>
#include <set>
#include <thread>

#include "domain/events/event_json.hpp"
#include "domain/hex.hpp"
#include "infra/postgres/account_store.hpp"
#include "infra/random/key_material.hpp"
#include "infra/random/random.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"

#ifndef DUEPAY_SOURCE_DIR
#define DUEPAY_SOURCE_DIR "."
#endif

namespace duepay::tests {
namespace {

constexpr const char* kPayout = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
constexpr const char* kBody = R"({"chainId":80002,"amount":"777","paymentMode":"wallet"})";

// SIGCONT on scope exit, whatever happens: the broker is shared by the rest of the run.
struct Frozen {
    pid_t pid;
    explicit Frozen(pid_t p) : pid(p) { ::kill(pid, SIGSTOP); }
    ~Frozen() { thaw(); }
    void thaw() {
        if (pid > 0) ::kill(pid, SIGCONT);
        pid = -1;
    }
};

TEST(IdempotentUnknownOutcomeIt, ARetryAfterPossiblyPersistedAnswersTheSameCharge) {
    DUEPAY_REQUIRE_STACK(env);
    if (env.kafka_bootstrap != "127.0.0.1:19092") GTEST_SKIP() << "freezes the dev broker only";
    pid_t broker = 0;
    std::ifstream(std::string(DUEPAY_SOURCE_DIR) + "/var/kafka/kafka.pid") >> broker;
    if (broker <= 0 || ::kill(broker, 0) != 0)
        GTEST_SKIP() << "no dev broker pid in var/kafka/kafka.pid";

    const std::string project =
        "prj_it_unknown_" + domain::to_hex(infra::random::random_bytes<6>()).substr(2);
    const std::string key =
        "dp_test_" + domain::to_hex(infra::random::random_bytes<24>()).substr(2);
    {
        pqxx::connection conn(env.database_url);
        pqxx::work tx(conn);
        infra::postgres::upsert_project(tx,
                                        {project, "unknown outcome", "pro", std::string(kPayout)});
        infra::postgres::upsert_api_key(tx, "key_" + project, project, "test",
                                        infra::random::sha256(key), key.substr(0, 12));
        tx.commit();
    }
    auto server = start_dev_server(env, "unknown", 1);
    ASSERT_TRUE(server.process->alive()) << server.process->log();
    const std::map<std::string, std::string> headers{{"x-api-key", key},
                                                     {"content-type", "application/json"},
                                                     {"idempotency-key", "order-unknown"}};
    // Warm the producer's connection and metadata, so the frozen broker gets the record itself.
    ASSERT_EQ(http("POST", server.base_url + "/v1/invoices",
                   {{"x-api-key", key}, {"content-type", "application/json"}}, kBody)
                  .status,
              201);

    HttpResponse first;
    {
        Frozen frozen(broker);
        first = http("POST", server.base_url + "/v1/invoices", headers, kBody, 30000);
    }  // SIGCONT: the broker writes what it received
    ASSERT_EQ(first.status, 503) << first.body << "\n" << server.process->log();
    if (first.body.find("event_log_outcome_unknown") == std::string::npos) {
        GTEST_SKIP() << "the producer reported a clean failure this time (not an unknown outcome): "
                     << first.body;
    }

    HttpResponse retry;
    ASSERT_TRUE(wait_until(
        [&] {
            retry = http("POST", server.base_url + "/v1/invoices", headers, kBody);
            return retry.status == 201;
        },
        std::chrono::seconds(30)))
        << retry.status << " " << retry.body << "\n"
        << server.process->log();
    rapidjson::Document d;
    d.Parse(retry.body.c_str());
    const std::string invoice = d["data"]["invoiceId"].GetString();

    // Every record of this key's charge in the topic is the one prepared event.
    const auto messages = read_topic(env.kafka_bootstrap, server.topic, 2, std::chrono::seconds(5));
    std::set<std::string> invoices_of_key;
    std::set<std::string> event_ids;
    for (const auto& m : messages) {
        auto event = domain::events::decode_event(m.value);
        ASSERT_TRUE(event) << m.value;
        const auto id = domain::to_hex(event->invoice_id);
        if (id == invoice) event_ids.insert(event->id);
        invoices_of_key.insert(id);
    }
    // The warm-up charge and this one: two invoices, never three.
    EXPECT_EQ(invoices_of_key.size(), 2u);
    EXPECT_TRUE(invoices_of_key.contains(invoice));
    EXPECT_EQ(event_ids.size(), 1u);
    ASSERT_TRUE(
        wait_until([&] { return count_charges(env, project) >= 2; }, std::chrono::seconds(15)));
    EXPECT_EQ(count_charges(env, project), 2);
    EXPECT_EQ(server.process->stop(), 0);
}

}  // namespace
}  // namespace duepay::tests
