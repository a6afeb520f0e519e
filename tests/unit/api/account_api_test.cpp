// AccountApi against a fake Accounts port (tests/doubles): routing, methods, authentication and
// every input rejection happen before the store is asked anything; what the routes ask of the port
// (the key's own project, the checked fields) and how they render its answers and rejections. The
// Postgres adapter and the rules behind it are tested against the real stack in
// tests/integration/accounts/self_serve_test.cpp.
#include "api/http/account_api.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cctype>
#include <string>
#include <vector>

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
    doubles::FakeAccounts accounts_ = [] {
        doubles::FakeAccounts accounts;
        accounts.projects["prj_1"] = doubles::project_view("prj_1");
        return accounts;
    }();
    AccountApi api_{AccountApiDeps{&keys_, &accounts_}};
};

// The `data` of an answer's envelope.
rapidjson::Document json(const ApiResponse& r) {
    rapidjson::Document d;
    d.Parse(r.body.c_str());
    rapidjson::Document data;
    if (d.HasParseError() || !d.IsObject() || !d.HasMember("data")) {
        ADD_FAILURE() << "no data in " << r.body;
        data.SetObject();
        return data;
    }
    data.CopyFrom(d["data"], data.GetAllocator());
    return data;
}

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
             {"PATCH", "/v1/project", "", "invalid_json"},  // nothing to change is not a no-op
             {"PATCH", "/v1/project", R"({"name":"a","name":"b"})", "duplicate_field"},
             {"PATCH", "/v1/project",
              R"({"name":)" + std::string(40, '[') + std::string(40, ']') + "}", "json_too_deep"},
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
    EXPECT_TRUE(accounts_.calls.empty()) << accounts_.calls.front();
}

TEST_F(AccountApiTest, ReadsTheKeysOwnProjectFromTheStore) {
    auto r = send("GET", "/v1/project");
    ASSERT_EQ(r.status, 200) << r.body;
    auto d = json(r);
    EXPECT_STREQ(d["projectId"].GetString(), "prj_1");
    EXPECT_STREQ(d["name"].GetString(), "Acme");
    EXPECT_EQ(d["paymentWindowSeconds"].GetInt(), 900);
    EXPECT_TRUE(d["payoutAddress"].IsNull());
    EXPECT_EQ(accounts_.calls, std::vector<std::string>{"find_project prj_1"});
    accounts_.projects.clear();  // the project is gone: its keys no longer authenticate anything
    EXPECT_EQ(code(send("GET", "/v1/project")), "invalid_api_key");
}

TEST_F(AccountApiTest, RollsTheCallingKeyAndShowsTheNewKeyOnce) {
    KeyRoll k;
    k.key_id = "key_2";
    k.secret = "dp_test_" + std::string(64, 'c');
    k.project_id = ProjectId{"prj_1"};
    k.mode = Mode::test;
    k.prefix = "dp_test_cccc";
    k.created_at = "2026-11-24T02:00:00Z";
    k.previous_key_id = "key_1";
    k.previous_expires_at = "2026-11-24T03:00:00Z";
    accounts_.roll_answer = k;
    auto r = send("POST", "/v1/api-keys/roll", R"({"expiresInSeconds":3600})");
    ASSERT_EQ(r.status, 201) << r.body;
    auto d = json(r);
    EXPECT_STREQ(d["keyId"].GetString(), "key_2");
    EXPECT_EQ(d["key"].GetString(), k.secret);
    EXPECT_STREQ(d["mode"].GetString(), "test");
    EXPECT_STREQ(d["previousKey"]["keyId"].GetString(), "key_1");
    EXPECT_STREQ(d["previousKey"]["expiresAt"].GetString(), "2026-11-24T03:00:00Z");
    EXPECT_EQ(accounts_.calls, std::vector<std::string>{"roll_key key_1 3600"});
    accounts_.roll_answer.reset();  // rolled already (or revoked meanwhile)
    auto again = send("POST", "/v1/api-keys/roll", R"({"expiresInSeconds":0})");
    EXPECT_EQ(again.status, 409);
    EXPECT_EQ(code(again), "key_already_rolled");
}

TEST_F(AccountApiTest, PatchSendsOnlyTheCheckedFieldsAndNullClears) {
    auto r = send("PATCH", "/v1/project", R"({"name":" Shop ","logoUrl":null,"accentColor":null})");
    ASSERT_EQ(r.status, 200) << r.body;
    ASSERT_EQ(accounts_.updates.size(), 1u);
    const auto& u = accounts_.updates[0];
    ASSERT_TRUE(u.name.has_value());
    EXPECT_EQ(json(r)["name"].GetString(), *u.name);
    EXPECT_EQ(u.logo_url, std::optional<std::string>(""));
    EXPECT_EQ(u.accent_color, std::optional<std::string>(""));
    EXPECT_FALSE(u.payment_window_seconds.has_value());
    EXPECT_EQ(accounts_.calls, std::vector<std::string>{"update_project prj_1 by key_1"});
}

TEST_F(AccountApiTest, ChallengeAsksForTheCurrentWalletOnlyWhenAnotherIsVerified) {
    const std::string a = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    const std::string b = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
    auto first = send("POST", "/v1/payout-wallet/challenge", R"({"address":")" + b + R"("})");
    ASSERT_EQ(first.status, 201) << first.body;
    EXPECT_FALSE(json(first)["currentWalletSignatureRequired"].GetBool());
    accounts_.projects["prj_1"].payout_address = a;
    // Lower-case in, EIP-55 to the store and in the answer.
    auto lower = b;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto other = send("POST", "/v1/payout-wallet/challenge", R"({"address":")" + lower + R"("})");
    ASSERT_EQ(other.status, 201) << other.body;
    auto d = json(other);
    EXPECT_EQ(d["address"].GetString(), b);
    EXPECT_EQ(d["payoutAddress"].GetString(), a);
    EXPECT_TRUE(d["currentWalletSignatureRequired"].GetBool());
    auto same = send("POST", "/v1/payout-wallet/challenge", R"({"address":")" + a + R"("})");
    EXPECT_FALSE(json(same)["currentWalletSignatureRequired"].GetBool());
    EXPECT_EQ(accounts_.calls.back(), "issue_wallet_challenge prj_1 " + a + " 600");
}

TEST_F(AccountApiTest, VerifyForwardsTheProofAndMapsEachRejection) {
    const std::string a = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    const std::string sig = "0x" + std::string(128, '1') + "1b";
    const std::string body = R"({"address":")" + a + R"(","signature":")" + sig +
                             R"(","nonce":"n0nce","currentWalletSignature":")" + sig + R"("})";
    struct Case {
        const char* code;
        int status;
    };
    for (const auto& c : std::initializer_list<Case>{{"invalid_signature", 400},
                                                     {"challenge_not_found", 409},
                                                     {"challenge_used", 409},
                                                     {"challenge_expired", 409},
                                                     {"signer_mismatch", 422},
                                                     {"current_wallet_signature_required", 422},
                                                     {"current_wallet_signer_mismatch", 422}}) {
        accounts_.verify_answer = domain::Error{c.code, "refused"};
        auto r = send("POST", "/v1/payout-wallet/verify", body);
        EXPECT_EQ(r.status, c.status) << c.code;
        EXPECT_EQ(code(r), c.code);
    }
    ASSERT_FALSE(accounts_.proofs.empty());
    const auto& p = accounts_.proofs.back();
    EXPECT_EQ(p.project_id.value, "prj_1");
    EXPECT_EQ(p.address, a);
    EXPECT_EQ(p.signature, sig);
    EXPECT_EQ(p.nonce, std::optional<std::string>("n0nce"));
    EXPECT_EQ(p.current_signature, std::optional<std::string>(sig));
    EXPECT_EQ(accounts_.calls.back(), "verify_wallet prj_1 " + a + " by key_1");
    auto verified = accounts_.projects["prj_1"];
    verified.payout_address = a;
    accounts_.verify_answer = verified;
    auto ok = send("POST", "/v1/payout-wallet/verify", body);
    ASSERT_EQ(ok.status, 200) << ok.body;
    EXPECT_EQ(json(ok)["payoutAddress"].GetString(), a);
}

TEST_F(AccountApiTest, AnUnreachableStoreIsStoreUnavailableForTheRouterTo503) {
    accounts_.unavailable = true;
    EXPECT_THROW(send("GET", "/v1/project"), ports::StoreUnavailable);
    EXPECT_THROW(send("POST", "/v1/api-keys/roll", R"({"expiresInSeconds":0})"),
                 ports::StoreUnavailable);
}

}  // namespace
}  // namespace duepay::api
