// Create then read over the real broker and Postgres: `duepay dev` (api + projector) on a fresh
// topic, driven over HTTP; plus the envelope of every failure class (401, 404, 405, bad JSON).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "tests/integration/pipeline/dev_server_suite.hpp"

namespace duepay::tests {
namespace {

rapidjson::Document parse(const std::string& body) {
    rapidjson::Document d;
    d.Parse(body.c_str());
    EXPECT_FALSE(d.HasParseError()) << body;
    return d;
}

class ApiPipeline : public DevServerSuite<ApiPipeline> {
  public:
    static constexpr const char* kServerName = "api";
};

TEST_F(ApiPipeline, CreateThenReadReturnsTheSameChargePending) {
    auto created = http(
        "POST", url("/v1/invoices"),
        {{"x-api-key", *key_},
         {"content-type", "application/json"},
         {"x-request-id", "it-create-1"}},
        R"({"chainId":80002,"amount":"2500000","reference":"order-it-1","expiresInSeconds":600})");
    ASSERT_EQ(created.status, 201) << created.body << "\n" << server_->process->log();
    EXPECT_EQ(created.headers["x-request-id"], "it-create-1");
    auto c = parse(created.body);
    ASSERT_TRUE(c["success"].GetBool());
    const auto& data = c["data"];
    const std::string id = data["invoiceId"].GetString();
    EXPECT_EQ(id.size(), 66u);
    EXPECT_EQ(std::string(data["checkoutUrl"].GetString()), server_->base_url + "/c/" + id);
    EXPECT_EQ(std::string(data["mode"].GetString()), "both");
    EXPECT_TRUE(data.HasMember("depositAddress"));
    EXPECT_TRUE(data.HasMember("intent"));
    EXPECT_EQ(std::string(data["signature"].GetString()).size(), 132u);

    // The create waited for the projection: the very first read finds it.
    auto read = http("GET", url("/v1/charges/" + id), {{"Authorization", "Bearer " + *key_}});
    ASSERT_EQ(read.status, 200) << read.body;
    EXPECT_EQ(read.headers.count("x-request-id"), 1u);
    auto r = parse(read.body);
    const auto& charge = r["data"];
    EXPECT_EQ(std::string(charge["status"].GetString()), "pending");
    for (const char* field :
         {"invoiceId", "token", "amount", "deadline", "depositAddress", "reference", "signature"}) {
        EXPECT_EQ(std::string(charge[field].GetString()), std::string(data[field].GetString()))
            << field;
    }
    EXPECT_EQ(charge["chainId"].GetUint64(), 80002u);
    EXPECT_EQ(charge["feeBps"].GetInt(), data["feeBps"].GetInt());
    EXPECT_EQ(std::string(charge["tokenInfo"]["symbol"].GetString()), "USDT");

    auto status = http("GET", url("/v1/charges/" + id + "/status"), {{"x-api-key", *key_}});
    ASSERT_EQ(status.status, 200);
    EXPECT_EQ(status.body, R"({"success":true,"data":{"invoiceId":")" + id +
                               R"(","status":"pending"},"error":null})");

    // An id nobody created.
    auto unknown = http("GET", url("/v1/charges/0x" + std::string(64, '0') + "/status"),
                        {{"x-api-key", *key_}});
    expect_error_envelope(unknown, 404, "charge_not_found");
}

TEST_F(ApiPipeline, MissingAndWrongKeysAre401) {
    auto none = http("POST", url("/v1/invoices"), {{"content-type", "application/json"}},
                     R"({"chainId":80002})");
    expect_error_envelope(none, 401, "invalid_api_key");
    EXPECT_EQ(parse(none.body)["error"].GetString(), std::string("invalid API key"));
    auto wrong =
        http("GET", url("/v1/charges/0x" + std::string(64, '1')), {{"x-api-key", "dp_test_wrong"}});
    expect_error_envelope(wrong, 401, "invalid_api_key");
}

TEST_F(ApiPipeline, UnknownRouteMethodAndBadJsonKeepTheEnvelopeAndRequestId) {
    auto nf = http("GET", url("/v1/nowhere"), {{"x-request-id", "abc.DEF-123_x"}});
    expect_error_envelope(nf, 404, "route_not_found");
    EXPECT_EQ(nf.headers["x-request-id"], "abc.DEF-123_x");
    auto bad_id = http("GET", url("/v1/nowhere"), {{"x-request-id", "has space"}});
    EXPECT_NE(bad_id.headers["x-request-id"], "has space");
    EXPECT_EQ(bad_id.headers["x-request-id"].rfind("req_", 0), 0u);
    auto method = http("PUT", url("/v1/invoices"), {{"x-api-key", *key_}}, "{}");
    expect_error_envelope(method, 405, "method_not_allowed");
    EXPECT_EQ(method.headers["allow"], "POST");
    auto json = http("POST", url("/v1/invoices"),
                     {{"x-api-key", *key_}, {"content-type", "application/json"}},
                     R"({"chainId":80002,"amount":)");
    expect_error_envelope(json, 400, "invalid_json");
    auto mismatch = http("POST", url("/v1/invoices"),
                         {{"x-api-key", *key_}, {"content-type", "application/json"}},
                         R"({"chainId":137,"amount":"1"})");
    expect_error_envelope(mismatch, 400, "key_mode_mismatch");
}

}  // namespace
}  // namespace duepay::tests
