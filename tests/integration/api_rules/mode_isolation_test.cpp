// Reads are scoped by the key's mode, as creates are: one project with a test key
// and a live key, one charge of each mode through the real API (`duepay dev` on a fresh topic of
// the dev stack, chain 80002 testnet and 137 mainnet); each key reads its own mode's charge and
// gets 404 charge_not_found for the other's, on the full read and on the status route.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <pqxx/pqxx>

#include "domain/hex.hpp"
#include "infra/postgres/account_store.hpp"
#include "infra/random/key_material.hpp"
#include "infra/random/random.hpp"
#include "tests/integration/pipeline/dev_server_suite.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests {
namespace {

constexpr const char* kPayout = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

std::string random_key(const std::string& mode) {
    return "dp_" + mode + "_" + domain::to_hex(infra::random::random_bytes<24>()).substr(2);
}

std::string invoice_of(const HttpResponse& r) {
    rapidjson::Document d;
    d.Parse(r.body.c_str());
    if (d.HasParseError() || !d.IsObject() || !d["data"].IsObject()) return "";
    return d["data"]["invoiceId"].GetString();
}

TEST(ModeIsolationIt, ATestKeyCannotReadALiveChargeOfItsProjectNorViceVersa) {
    DUEPAY_REQUIRE_STACK(env);
    const std::string project =
        "prj_it_modes_" + domain::to_hex(infra::random::random_bytes<8>()).substr(2);
    const std::string test_key = random_key("test");
    const std::string live_key = random_key("live");
    {
        pqxx::connection conn(env.database_url);
        pqxx::work tx(conn);
        infra::postgres::upsert_project(tx,
                                        {project, "mode isolation", "pro", std::string(kPayout)});
        infra::postgres::upsert_api_key(tx, "key_t_" + project, project, "test",
                                        infra::random::sha256(test_key), test_key.substr(0, 12));
        infra::postgres::upsert_api_key(tx, "key_l_" + project, project, "live",
                                        infra::random::sha256(live_key), live_key.substr(0, 12));
        tx.commit();
    }
    auto server = start_dev_server(env, "modes", 2);
    ASSERT_TRUE(server.process->alive()) << server.process->log();
    auto create = [&](const std::string& key, const std::string& body) {
        return http("POST", server.base_url + "/v1/invoices",
                    {{"x-api-key", key}, {"content-type", "application/json"}}, body);
    };
    auto live = create(live_key, R"({"chainId":137,"amount":"1000"})");
    ASSERT_EQ(live.status, 201) << live.body;
    auto test = create(test_key, R"({"chainId":80002,"amount":"1000"})");
    ASSERT_EQ(test.status, 201) << test.body;
    const std::string live_id = invoice_of(live);
    const std::string test_id = invoice_of(test);
    ASSERT_FALSE(live_id.empty());
    ASSERT_FALSE(test_id.empty());

    for (const std::string& suffix : {std::string(), std::string("/status")}) {
        // Own mode: found (the create waited for the projection).
        EXPECT_EQ(http("GET", server.base_url + "/v1/charges/" + live_id + suffix,
                       {{"x-api-key", live_key}})
                      .status,
                  200);
        EXPECT_EQ(http("GET", server.base_url + "/v1/charges/" + test_id + suffix,
                       {{"x-api-key", test_key}})
                      .status,
                  200);
        // The other mode: as if it did not exist, and no freshly signed intent of the other mode.
        auto cross_a = http("GET", server.base_url + "/v1/charges/" + live_id + suffix,
                            {{"x-api-key", test_key}});
        expect_error_envelope(cross_a, 404, "charge_not_found");
        EXPECT_EQ(cross_a.body.find("intent"), std::string::npos);
        auto cross_b = http("GET", server.base_url + "/v1/charges/" + test_id + suffix,
                            {{"x-api-key", live_key}});
        expect_error_envelope(cross_b, 404, "charge_not_found");
    }
    EXPECT_EQ(server.process->stop(), 0);
}

}  // namespace
}  // namespace duepay::tests
