// Two `duepay api` processes behind the same Postgres and Kafka, with one `duepay projector`: a
// charge created on one is readable at once on the other, an Idempotency-Key used on one replays
// on the other, a status change reaches the status cache of both (NOTIFY), and a kill -9 of one
// api leaves the other serving.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <array>
#include <memory>

#include "domain/events/event_json.hpp"
#include "domain/hex.hpp"
#include "infra/kafka/topic_admin.hpp"
#include "tests/integration/pipeline/event_stream.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests {
namespace {

namespace ev = domain::events;

rapidjson::Document parse(const std::string& body) {
    rapidjson::Document d;
    d.Parse(body.c_str());
    return d;
}

std::string status_of(const HttpResponse& r) {
    auto d = parse(r.body);
    if (d.HasParseError() || !d.IsObject() || !d["success"].IsTrue()) return "";
    return d["data"]["status"].GetString();
}

// charge.expired for `invoice_id` (a test-mode charge of prj_demo on 80002), as chainwatch would
// append it.
ports::LogRecord expired_event(const std::string& invoice_id, std::uint64_t deadline) {
    ev::Event e;
    e.id = "two-apis-expired-" + invoice_id;
    e.invoice_id = domain::parse_invoice_id(invoice_id).value();
    e.project_id = "prj_demo";
    e.mode = ev::Mode::test;
    e.chain_id = domain::ChainId{80002};
    e.occurred_at = "2026-11-21T10:00:00.000Z";
    e.data = ev::ChargeExpired{deadline, 0, 1000, deadline + 1};
    return {invoice_id, ev::encode_event(e)};
}

TEST(TwoApis, ACreateOnOneIsReadableAtOnceOnTheOther) {
    DUEPAY_REQUIRE_STACK(env);
    const auto key = demo_key(env);
    ASSERT_FALSE(key.empty());
    const auto suffix = unique_suffix();
    const std::string topic = "duepay.test.apis." + suffix;
    const std::string group = "duepay-test-apis-" + suffix;
    infra::kafka::ensure_topic(env.kafka_bootstrap, topic, 3, std::chrono::seconds(20));

    Process projector({duepay_binary(), "projector", "--topic", topic, "--group", group}, {},
                      "/tmp/duepay-apis-projector-" + suffix + ".log");
    std::array<std::unique_ptr<Process>, 2> apis;
    std::array<std::string, 2> base;
    for (std::size_t i = 0; i < apis.size(); ++i) {
        const auto listen = "127.0.0.1:" + std::to_string(free_port());
        base[i] = "http://" + listen;
        apis[i] = std::make_unique<Process>(
            std::vector<std::string>{duepay_binary(), "api", "--listen", listen, "--topic", topic},
            std::map<std::string, std::string>{{"DUEPAY_CHECKOUT_URL", base[i]}},
            "/tmp/duepay-apis-" + std::to_string(i) + "-" + suffix + ".log");
    }
    for (std::size_t i = 0; i < apis.size(); ++i) {
        ASSERT_TRUE(wait_until(
            [&] {
                return http("GET", base[i] + "/healthz", {}).status == 200 || !apis[i]->alive();
            },
            std::chrono::seconds(30)));
        ASSERT_TRUE(apis[i]->alive()) << apis[i]->log();
    }
    const std::map<std::string, std::string> json{{"x-api-key", key},
                                                  {"content-type", "application/json"}};
    const std::map<std::string, std::string> auth{{"x-api-key", key}};

    // Created on one, read on the other with no wait: full read and the cached status route.
    std::vector<std::string> ids;
    for (int n = 0; n < 10; ++n) {
        const auto& on = base[n % 2];
        const auto& other = base[(n + 1) % 2];
        auto created = http("POST", on + "/v1/invoices", json,
                            R"({"chainId":80002,"amount":")" + std::to_string(1000 + n) + "\"}");
        ASSERT_EQ(created.status, 201) << created.body;
        const auto c = parse(created.body);
        const std::string id = c["data"]["invoiceId"].GetString();
        auto read = http("GET", other + "/v1/charges/" + id, auth);
        ASSERT_EQ(read.status, 200)
            << "created on " << on << ", read on " << other << ": " << read.body;
        const auto r = parse(read.body);
        EXPECT_EQ(std::string(r["data"]["amount"].GetString()), std::to_string(1000 + n));
        EXPECT_EQ(std::string(r["data"]["depositAddress"].GetString()),
                  std::string(c["data"]["depositAddress"].GetString()));
        EXPECT_EQ(status_of(http("GET", other + "/v1/charges/" + id + "/status", auth)), "pending");
        ids.push_back(id);
    }

    // One Idempotency-Key, the same body on both: one charge.
    auto with_key = json;
    with_key["idempotency-key"] = "two-apis-" + suffix;
    const std::string body = R"({"chainId":80002,"amount":"777"})";
    auto first = http("POST", base[0] + "/v1/invoices", with_key, body);
    ASSERT_EQ(first.status, 201) << first.body;
    auto again = http("POST", base[1] + "/v1/invoices", with_key, body);
    ASSERT_EQ(again.status, 201) << again.body;
    EXPECT_EQ(std::string(parse(again.body)["data"]["invoiceId"].GetString()),
              std::string(parse(first.body)["data"]["invoiceId"].GetString()));

    // A status change projected from the topic reaches the status cache of both processes.
    const auto deadline = parse(http("GET", base[0] + "/v1/charges/" + ids[0], auth).body);
    const auto limit = std::stoull(deadline["data"]["deadline"].GetString());
    ASSERT_EQ(produce_all(env.kafka_bootstrap, topic, {expired_event(ids[0], limit)}), 1u);
    for (const auto& b : base) {
        EXPECT_TRUE(wait_until(
            [&] {
                return status_of(http("GET", b + "/v1/charges/" + ids[0] + "/status", auth)) ==
                       "expired";
            },
            std::chrono::seconds(10)))
            << b;
    }

    // One api dies; the other keeps creating, and the projector keeps up.
    apis[0]->kill_hard();
    for (int n = 0; n < 5; ++n) {
        auto created = http("POST", base[1] + "/v1/invoices", json,
                            R"({"chainId":80002,"amount":")" + std::to_string(2000 + n) + "\"}");
        ASSERT_EQ(created.status, 201) << created.body;
        const std::string id = parse(created.body)["data"]["invoiceId"].GetString();
        EXPECT_EQ(http("GET", base[1] + "/v1/charges/" + id, auth).status, 200);
    }
    EXPECT_EQ(apis[1]->stop(), 0) << apis[1]->log();
    // 10 + 1 (the key used twice) + 5 creates and one expiry: every one is in the read model.
    EXPECT_TRUE(wait_until([&] { return journal_count(env.database_url, topic) == 17; },
                           std::chrono::seconds(10)))
        << journal_count(env.database_url, topic);
    EXPECT_EQ(projector.stop(), 0) << projector.log();
}

}  // namespace
}  // namespace duepay::tests
