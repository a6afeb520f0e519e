// Idempotency-Key, rate limit and quota on POST /v1/invoices through the real HTTP API: `duepay
// dev` subprocesses against the dev stack (Postgres, Kafka, chain registry). Each test creates its
// own project on the plan `free` (30 creations a minute) with its own test key, so the demo project
// (plan unmetered) and other tests are untouched.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <pqxx/pqxx>
#include <set>
#include <thread>
#include <vector>

#include "domain/hex.hpp"
#include "infra/postgres/account_store.hpp"
#include "infra/random/key_material.hpp"
#include "infra/random/random.hpp"
#include "tests/integration/guards/guards_support.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests {
namespace {

constexpr const char* kPayout = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

struct TestProject {
    std::string id;
    std::string key;
};

// A fresh project on plan `free` with a verified payout wallet and one test key (hash stored only).
TestProject make_free_project(const StackEnv& env, const std::string& tag) {
    TestProject p;
    p.id = guards::unique_project(tag);
    p.key = "dp_test_" + domain::to_hex(infra::random::random_bytes<24>()).substr(2);
    pqxx::connection conn(env.database_url);
    pqxx::work tx(conn);
    infra::postgres::upsert_project(tx, {p.id, "guards " + tag, "free", std::string(kPayout)});
    infra::postgres::upsert_api_key(tx, "key_" + p.id, p.id, "test", infra::random::sha256(p.key),
                                    p.key.substr(0, 12));
    tx.commit();
    return p;
}

std::int64_t month_count(const StackEnv& env, const std::string& project_id) {
    pqxx::connection conn(env.database_url);
    pqxx::nontransaction tx(conn);
    auto r = tx.exec_params(
        "select count from monthly_usage where project_id = $1 and month = date_trunc('month', "
        "now() at time zone 'UTC')::date",
        project_id);
    return r.empty() ? 0 : r[0][0].as<std::int64_t>();
}

rapidjson::Document parse(const std::string& body) {
    rapidjson::Document d;
    d.Parse(body.c_str());
    EXPECT_FALSE(d.HasParseError()) << body;
    return d;
}

std::string code_of(const HttpResponse& r) {
    auto d = parse(r.body);
    if (!d.IsObject() || !d.HasMember("meta") || !d["meta"].HasMember("code")) return "";
    return d["meta"]["code"].GetString();
}

HttpResponse create(const std::string& base_url, const std::string& key, const std::string& body,
                    const std::string& idempotency_key = "") {
    std::map<std::string, std::string> headers{{"x-api-key", key},
                                               {"content-type", "application/json"}};
    if (!idempotency_key.empty()) headers["idempotency-key"] = idempotency_key;
    return http("POST", base_url + "/v1/invoices", headers, body);
}

// Runs `n` calls of `f(i)` on `threads` threads; returns the answers in call order.
std::vector<HttpResponse> in_parallel(int n, int threads,
                                      const std::function<HttpResponse(int)>& f) {
    std::vector<HttpResponse> out(static_cast<std::size_t>(n));
    std::atomic<int> next{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&] {
            for (int i = next++; i < n; i = next++) out[static_cast<std::size_t>(i)] = f(i);
        });
    }
    for (auto& t : pool) t.join();
    return out;
}

TEST(CreateGuardsIt, FiftyParallelCreatesWithOneKeyMakeExactlyOneCharge) {
    DUEPAY_REQUIRE_STACK(env);
    auto server = start_dev_server(env, "idem", 2);
    ASSERT_TRUE(server.process->alive()) << server.process->log();
    const auto project = make_free_project(env, "idem");
    const std::string body = R"({"chainId":80002,"amount":"1234567","reference":"idem-1"})";
    const std::string key = "order-" + guards::unique_project("k");

    auto answers =
        in_parallel(50, 16, [&](int) { return create(server.base_url, project.key, body, key); });
    int created = 0;
    int in_use = 0;
    std::set<std::string> bodies;
    for (const auto& a : answers) {
        if (a.status == 201) {
            ++created;
            bodies.insert(a.body);
        } else if (a.status == 409) {
            EXPECT_EQ(code_of(a), "idempotency_key_in_use") << a.body;
            ++in_use;
        } else {
            ADD_FAILURE() << "unexpected " << a.status << ": " << a.body;
        }
    }
    std::cout << "50 parallel creates with one key: " << created << " x 201, " << in_use << " x 409"
              << std::endl;
    EXPECT_EQ(created + in_use, 50);
    ASSERT_GE(created, 1);
    ASSERT_EQ(bodies.size(), 1u) << "every 201 is the same charge, byte for byte";
    const std::string original = *bodies.begin();
    const std::string invoice_id = parse(original)["data"]["invoiceId"].GetString();

    // Exactly one charge.created in the topic and one row in the read model.
    auto messages = read_topic(env.kafka_bootstrap, server.topic, 1, std::chrono::seconds(15));
    ASSERT_EQ(messages.size(), 1u);
    EXPECT_EQ(messages[0].key, invoice_id);
    EXPECT_EQ(count_charges(env, project.id), 1);
    EXPECT_EQ(month_count(env, project.id), 1) << "one quota unit for one charge";

    // A later replay is the original response, byte for byte.
    auto replay = create(server.base_url, project.key, body, key);
    EXPECT_EQ(replay.status, 201);
    EXPECT_EQ(replay.body, original);

    // The same key with another body is refused; nothing is created.
    auto reused = create(server.base_url, project.key,
                         R"({"chainId":80002,"amount":"1234568","reference":"idem-1"})", key);
    EXPECT_EQ(reused.status, 422) << reused.body;
    EXPECT_EQ(code_of(reused), "idempotency_key_reused");
    // A malformed key is a 400.
    auto bad = create(server.base_url, project.key, body, std::string(256, 'x'));
    EXPECT_EQ(bad.status, 400) << bad.body;
    EXPECT_EQ(code_of(bad), "invalid_idempotency_key");
    EXPECT_EQ(count_charges(env, project.id), 1);
    EXPECT_EQ(server.process->stop(), 0);
}

TEST(CreateGuardsIt, TwoApiProcessesShareOneFreeProjectsBurstOfThirty) {
    DUEPAY_REQUIRE_STACK(env);
    auto a = start_dev_server(env, "ratea", 2);
    auto b = start_dev_server(env, "rateb", 2);
    ASSERT_TRUE(a.process->alive()) << a.process->log();
    ASSERT_TRUE(b.process->alive()) << b.process->log();
    const auto project = make_free_project(env, "rate");
    const std::string body = R"({"chainId":80002,"amount":"1000000"})";
    const std::string first_key = "first-" + project.id;

    // One create with a key (token 1 of 30), then 35 at once over both processes.
    const auto started = std::chrono::steady_clock::now();
    auto first = create(a.base_url, project.key, body, first_key);
    ASSERT_EQ(first.status, 201) << first.body;
    auto burst = in_parallel(35, 10, [&](int i) {
        return create(i % 2 == 0 ? a.base_url : b.base_url, project.key, body);
    });
    const auto elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::steady_clock::now() - started)
                                .count();
    int allowed = 0;
    int limited = 0;
    std::int64_t max_retry = 0;
    for (const auto& r : burst) {
        if (r.status == 201) {
            ++allowed;
        } else if (r.status == 429) {
            ++limited;
            auto d = parse(r.body);
            EXPECT_EQ(code_of(r), "rate_limited");
            EXPECT_EQ(std::string(d["error"].GetString()), "too many requests — slow down");
            ASSERT_TRUE(d["meta"].HasMember("retryAfterMs")) << r.body;
            const auto retry = d["meta"]["retryAfterMs"].GetInt64();
            EXPECT_GT(retry, 0);
            EXPECT_LE(retry, 2000) << "free: one token every 2 s";
            max_retry = std::max(max_retry, retry);
        } else {
            ADD_FAILURE() << "unexpected " << r.status << ": " << r.body;
        }
    }
    std::cout << "burst over two api processes: 1 + " << allowed << " allowed, " << limited
              << " x 429 in " << elapsed_ms << " ms (max retryAfterMs " << max_retry << ")"
              << std::endl;
    // A token comes back every 2 s; the burst is far quicker, so exactly 30 pass.
    ASSERT_LT(elapsed_ms, 2000) << "the burst was too slow to test the exact count";
    EXPECT_EQ(1 + allowed, 30);
    EXPECT_EQ(limited, 35 - 29);

    // While limited, a replay still answers the original 201 (it needs no token) on either process.
    for (const auto& url : {a.base_url, b.base_url}) {
        auto replay = create(url, project.key, body, first_key);
        EXPECT_EQ(replay.status, 201) << replay.body;
        EXPECT_EQ(replay.body, first.body);
    }
    // A limited request with a new key frees it: after retryAfterMs the same key creates the
    // charge.
    const std::string second_key = "second-" + project.id;
    auto refused = create(b.base_url, project.key, body, second_key);
    ASSERT_EQ(refused.status, 429) << refused.body;
    const auto wait = parse(refused.body)["meta"]["retryAfterMs"].GetInt64();
    std::this_thread::sleep_for(std::chrono::milliseconds(wait + 20));
    auto retried = create(b.base_url, project.key, body, second_key);
    EXPECT_EQ(retried.status, 201) << retried.body;
    auto again = create(a.base_url, project.key, body, second_key);
    EXPECT_EQ(again.status, 201);
    EXPECT_EQ(again.body, retried.body);

    EXPECT_EQ(count_charges(env, project.id), 31);
    EXPECT_EQ(month_count(env, project.id), 31) << "refusals and replays take no quota";
    EXPECT_EQ(a.process->stop(), 0);
    EXPECT_EQ(b.process->stop(), 0);
}

TEST(CreateGuardsIt, TheDemoProjectIsUnmetered) {
    DUEPAY_REQUIRE_STACK(env);
    auto server = start_dev_server(env, "unmetered", 2);
    const std::string key = demo_key(env);
    ASSERT_FALSE(key.empty());
    {
        pqxx::connection conn(env.database_url);
        pqxx::nontransaction tx(conn);
        EXPECT_EQ(tx.exec1("select plan from projects where id = 'prj_demo'")[0].as<std::string>(),
                  "unmetered");
    }
    // More than any plan's burst (scale: 120) at once: all pass.
    auto answers = in_parallel(130, 10, [&](int) {
        return create(server.base_url, key, R"({"chainId":80002,"amount":"1"})");
    });
    int created = 0;
    for (const auto& r : answers) created += r.status == 201 ? 1 : 0;
    EXPECT_EQ(created, 130) << answers.back().body;
    EXPECT_EQ(server.process->stop(), 0);
}

}  // namespace
}  // namespace duepay::tests
