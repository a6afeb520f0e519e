// AccountApi without a database: routing, methods, authentication and every input rejection happen
// before the first query (the pool is null here, so a query would crash the test). The database
// paths are tested against the real stack in tests/integration/accounts/self_serve_test.cpp.
#include "api/http/account_api.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>

#include "infra/random/key_material.hpp"
#include "tests/doubles/api_ports.hpp"

namespace duepay::api {
namespace {

const std::string kKey = "dp_test_" + std::string(48, 'a');

class AccountApiTest : public ::testing::Test {
  protected:
    ApiResponse send(const std::string& method, const std::string& path,
                     const std::string& body = "", const std::string& key = kKey) {
        ApiRequest r;
        r.method = method;
        r.path = path;
        r.body = body;
        if (!key.empty()) r.headers["x-api-key"] = key;
        return api_.handle(r);
    }
    static std::string code(const ApiResponse& r) {
        rapidjson::Document d;
        d.Parse(r.body.c_str());
        if (d.HasParseError() || !d.HasMember("meta")) return "<" + r.body + ">";
        return d["meta"]["code"].GetString();
    }

    doubles::FakeKeys keys_ = [] {
        doubles::FakeKeys keys;
        auto owner = doubles::key_owner("key_1", "prj_1", Mode::test);
        owner.payout_address.reset();  // no payout wallet yet
        keys.add(kKey, owner);
        return keys;
    }();
    AccountApi api_{AccountApiDeps{&keys_, nullptr}};
};

TEST_F(AccountApiTest, OwnsItsPathsOnly) {
    EXPECT_TRUE(AccountApi::owns("/v1/api-keys/roll"));
    EXPECT_TRUE(AccountApi::owns("/v1/project"));
    EXPECT_TRUE(AccountApi::owns("/v1/payout-wallet/verify"));
    EXPECT_FALSE(AccountApi::owns("/v1/projects"));
    EXPECT_FALSE(AccountApi::owns("/v1/api-keys"));
    EXPECT_FALSE(AccountApi::owns("/v1/charges"));
}

TEST_F(AccountApiTest, RoutesMethodsAndKeys) {
    EXPECT_EQ(send("POST", "/v1/payout-wallet/remove").status, 404);
    auto get_roll = send("GET", "/v1/api-keys/roll");
    EXPECT_EQ(get_roll.status, 405);
    EXPECT_EQ(get_roll.headers["allow"], "POST");
    auto post_project = send("POST", "/v1/project", "{}");
    EXPECT_EQ(post_project.status, 405);
    EXPECT_EQ(post_project.headers["allow"], "GET, PATCH");
    auto anonymous = send("PATCH", "/v1/project", "{}", "");
    EXPECT_EQ(anonymous.status, 401);
    EXPECT_EQ(code(anonymous), "invalid_api_key");
    auto unknown = send("POST", "/v1/api-keys/roll", R"({"expiresInSeconds":0})",
                        "dp_test_" + std::string(48, 'b'));
    EXPECT_EQ(unknown.status, 401);
}

TEST_F(AccountApiTest, InputRejectionsCarryTheirCodes) {
    struct Case {
        const char* method;
        const char* path;
        std::string body;
        const char* code;
    };
    for (const auto& c : std::initializer_list<Case>{
             {"POST", "/v1/api-keys/roll", "", "invalid_expires_in"},
             {"POST", "/v1/api-keys/roll", R"({"expiresInSeconds":604801})", "invalid_expires_in"},
             {"POST", "/v1/api-keys/roll", R"({"expiresInSeconds":true})", "invalid_expires_in"},
             {"POST", "/v1/api-keys/roll", R"({"expiresInSeconds":1,"x":1})", "unknown_field"},
             {"POST", "/v1/api-keys/roll", "{", "invalid_json"},
             {"PATCH", "/v1/project", R"({"name":"a\u0000b"})", "invalid_string"},
             {"PATCH", "/v1/project", "{\"name\":\"\xff\"}", "invalid_string"},
             {"PATCH", "/v1/project", R"({"name":7})", "invalid_name"},
             {"PATCH", "/v1/project", R"({"logoUrl":"ftp://x.example/l"})", "invalid_logo_url"},
             {"PATCH", "/v1/project", R"({"accentColor":123})", "invalid_accent_color"},
             {"PATCH", "/v1/project", R"({"paymentWindowSeconds":1.5})", "invalid_payment_window"},
             {"PATCH", "/v1/project", R"({"payoutVerifiedAt":null})", "read_only_field"},
             {"POST", "/v1/payout-wallet/challenge", R"({"address":5})", "invalid_address"},
             {"POST", "/v1/payout-wallet/verify",
              R"({"address":"0x70997970c51812dc3a010c7d01b50e0d17dc79c8","signature":"0x12"})",
              "invalid_signature"},
             {"POST", "/v1/payout-wallet/verify",
              R"({"address":"0x70997970c51812dc3a010c7d01b50e0d17dc79c8","signature":"0x12",)"
              R"("currentWalletSignature":null})",
              "invalid_signature"},
         }) {
        auto r = send(c.method, c.path, c.body);
        EXPECT_EQ(r.status, 400) << c.path << " " << c.body << " " << r.body;
        EXPECT_EQ(code(r), c.code) << c.path << " " << c.body;
    }
}

}  // namespace
}  // namespace duepay::api
