// The webhook endpoint routes over a fake WebhookEndpoints port (api/http/webhooks_api.hpp,
// tests/doubles/): every input rejection is answered before the store is asked anything, each
// route asks for the key's own project and mode, and an endpoint of another project or mode is a
// 404. The Postgres adapter and the deliveries are tested against the real stack in
// tests/integration/webhooks (webhooks.test.mjs, with a real receiver).
#include "api/http/webhooks_api.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "infra/webhooks/endpoints.hpp"
#include "tests/doubles/api_ports.hpp"

namespace duepay::api {
namespace {

const std::string kKey = "dp_test_" + std::string(48, 'a');
const std::string kLiveKey = "dp_live_" + std::string(48, 'a');  // the same project, live mode
const std::string kMine = "we_" + std::string(24, 'a');
const std::string kTheirs = "we_" + std::string(24, 'b');  // another project's
const std::string kLive = "we_" + std::string(24, 'c');    // the same project's, live mode

class WebhooksApiTest : public ::testing::Test {
  protected:
    void SetUp() override {
        keys_.add(kKey, doubles::key_owner("key_1", "prj_1", Mode::test));
        keys_.add(kLiveKey, doubles::key_owner("key_2", "prj_1", Mode::live));
        add(kMine, "prj_1", Mode::test);
        add(kTheirs, "prj_2", Mode::test);
        add(kLive, "prj_1", Mode::live);
        store_.calls.clear();
    }
    void add(const std::string& id, const std::string& project, Mode mode) {
        WebhookEndpoint e;
        e.id = id;
        e.project_id = ProjectId{project};
        e.mode = mode;
        e.url = "https://hooks.example/" + id;
        e.events = {"invoice.paid"};
        store_.create(e);
    }
    ApiResponse send(const std::string& method, const std::string& path,
                     const std::string& body = "", const std::string& key = kKey) {
        ApiRequest r;
        r.method = method;
        const auto q = path.find('?');
        r.path = path.substr(0, q);
        if (q != std::string::npos) r.query = path.substr(q + 1);
        r.body = body;
        r.headers["x-api-key"] = key;
        return api_.handle(r);
    }
    static rapidjson::Document parsed(const ApiResponse& r) {
        rapidjson::Document d;
        d.Parse(r.body.c_str());
        EXPECT_FALSE(d.HasParseError()) << r.body;
        return d;
    }
    static std::string code(const ApiResponse& r) {
        auto d = parsed(r);
        return d.HasMember("meta") ? d["meta"]["code"].GetString() : "<" + r.body + ">";
    }

    doubles::FakeKeys keys_;
    doubles::FakeWebhookEndpoints store_;
    WebhooksApi api_{[this] {
        WebhooksApiDeps deps;
        deps.keys = &keys_;
        deps.endpoints = &store_;
        deps.allow_insecure = true;  // loopback URLs for test keys, no DNS in a unit test
        deps.now_ms = [] { return std::int64_t{1'795'000'000'000}; };
        return deps;
    }()};
};

TEST_F(WebhooksApiTest, CreatesForTheKeysProjectAndModeWithItsSecretOnce) {
    auto r = send("POST", "/v1/webhook-endpoints",
                  R"({"url":"http://127.0.0.1:9/hook","events":["invoice.paid","invoice.paid"]})");
    ASSERT_EQ(r.status, 201) << r.body;
    const auto& stored = store_.endpoints.back();
    EXPECT_EQ(stored.project_id.value, "prj_1");
    EXPECT_EQ(stored.mode, Mode::test);
    EXPECT_EQ(stored.events, std::vector<std::string>{"invoice.paid"});  // deduplicated
    EXPECT_TRUE(stored.id.starts_with("we_"));
    auto d = parsed(r);
    EXPECT_EQ(std::string(d["data"]["secret"].GetString()), stored.secret);
    EXPECT_STREQ(d["data"]["mode"].GetString(), "test");
    auto read = send("GET", "/v1/webhook-endpoints/" + stored.id);
    ASSERT_EQ(read.status, 200) << read.body;
    EXPECT_FALSE(parsed(read)["data"].HasMember("secret"));
}

TEST_F(WebhooksApiTest, InputRejectionsNeverReachTheStore) {
    struct Case {
        const char* method;
        std::string path;
        const char* body;
        const char* code;
    };
    const std::string item = "/v1/webhook-endpoints/" + kMine;
    for (const auto& c : std::initializer_list<Case>{
             {"POST", "/v1/webhook-endpoints", R"({"url":"http://127.0.0.1:9/h","mode":"live"})",
              "key_mode_mismatch"},
             {"POST", "/v1/webhook-endpoints", "{}", "invalid_webhook_url"},
             {"POST", "/v1/webhook-endpoints", R"({"url":"ftp://127.0.0.1/h"})",
              "webhook_url_not_https"},
             {"POST", "/v1/webhook-endpoints", R"({"url":"http://127.0.0.1:9/h","events":[]})",
              "invalid_webhook_events"},
             {"POST", "/v1/webhook-endpoints",
              R"({"url":"http://127.0.0.1:9/h","events":["charge.created"]})",
              "invalid_webhook_events"},
             {"POST", "/v1/webhook-endpoints", R"({"url":"http://127.0.0.1:9/h","x":1})",
              "unknown_field"},
             {"POST", "/v1/webhook-endpoints", "[1]", "invalid_json"},
             {"GET", "/v1/webhook-endpoints?limit=0", "", "invalid_limit"},
             {"GET", "/v1/webhook-endpoints?startingAfter=x", "", "invalid_cursor"},
             {"PATCH", item, R"({"status":"paused"})", "invalid_webhook_status"},
             {"PATCH", item, R"({"description":7})", "invalid_description"},
             {"POST", item + "/rotate-secret", R"({"expiresInSeconds":604801})",
              "invalid_expires_in"},
             {"GET", item + "/deliveries?before=x", "", "invalid_cursor"},
             {"POST", "/v1/webhook-deliveries/evt_1/redeliver", "", "invalid_webhook_endpoint_id"},
         }) {
        auto r = send(c.method, c.path, c.body);
        EXPECT_EQ(r.status, 400) << c.path << " " << c.body << " " << r.body;
        EXPECT_EQ(code(r), c.code) << c.path << " " << c.body;
    }
    EXPECT_TRUE(store_.calls.empty()) << store_.calls.front();
}

TEST_F(WebhooksApiTest, AnotherProjectsOrModesEndpointIsNotFound) {
    for (const auto& id : {kTheirs, kLive, "we_" + std::string(24, 'd')}) {
        const auto item = "/v1/webhook-endpoints/" + id;
        for (auto [method, path, body] :
             std::initializer_list<std::tuple<const char*, std::string, const char*>>{
                 {"GET", item, ""},
                 {"PATCH", item, R"({"status":"disabled"})"},
                 {"DELETE", item, ""},
                 {"POST", item + "/rotate-secret", ""},
                 {"POST", item + "/test", ""},
                 {"GET", item + "/deliveries", ""}}) {
            auto r = send(method, path, body);
            EXPECT_EQ(r.status, 404) << method << " " << path;
            EXPECT_EQ(code(r), "webhook_endpoint_not_found") << method << " " << path;
        }
        auto redeliver = send("POST", "/v1/webhook-deliveries/evt_" + std::string(48, 'e') +
                                          "/redeliver?endpoint=" + id);
        EXPECT_EQ(redeliver.status, 404);
        EXPECT_EQ(code(redeliver), "webhook_event_not_found");
    }
    for (const auto& e : store_.endpoints) EXPECT_FALSE(e.id.empty()) << "a delete went through";
    EXPECT_TRUE(store_.sent.empty());
}

TEST_F(WebhooksApiTest, EachRouteAsksTheStoreForWhatItNeeds) {
    const auto item = "/v1/webhook-endpoints/" + kMine;
    auto list = send("GET", "/v1/webhook-endpoints?limit=1&startingAfter=" + kLive);
    ASSERT_EQ(list.status, 200) << list.body;
    auto page = parsed(list);
    EXPECT_EQ(page["data"]["items"].Size(), 1u);
    EXPECT_FALSE(page["data"]["hasMore"].GetBool());  // asked for 2, the project has 1 in test
    auto patch = send("PATCH", item, R"({"description":null,"status":"disabled"})");
    ASSERT_EQ(patch.status, 200) << patch.body;
    ASSERT_EQ(store_.patches.size(), 1u);
    EXPECT_EQ(store_.patches[0].description,
              std::optional<std::optional<std::string>>(std::optional<std::string>()));
    EXPECT_FALSE(store_.patches[0].url.has_value());
    auto rotate = send("POST", item + "/rotate-secret", "");
    ASSERT_EQ(rotate.status, 200) << rotate.body;
    EXPECT_EQ(std::string(parsed(rotate)["data"]["secret"].GetString()),
              store_.endpoints[0].secret);
    auto test = send("POST", item + "/test", "");
    ASSERT_EQ(test.status, 202) << test.body;
    ASSERT_EQ(store_.sent.size(), 1u);
    EXPECT_EQ(store_.sent[0].type, "webhook.test");
    EXPECT_NE(store_.sent[0].body.find(kMine), std::string::npos) << store_.sent[0].body;
    EXPECT_EQ(std::string(parsed(test)["data"]["eventId"].GetString()), store_.sent[0].id);
    auto deliveries = send("GET", item + "/deliveries?limit=5&before=42");
    ASSERT_EQ(deliveries.status, 200) << deliveries.body;
    EXPECT_EQ(store_.calls,
              (std::vector<std::string>{"list prj_1 2 " + kLive, "update " + kMine,
                                        "rotate " + kMine + " 86400", "send_test " + kMine,
                                        "attempts " + kMine + " 6 42"}));
}

// DUEPAY_WEBHOOK_ALLOW_INSECURE=1 (allow_insecure here) lets http:// and loopback through for
// test-mode endpoints only: a live key gets the codes it would get without it.
TEST_F(WebhooksApiTest, DevRelaxationsAreForTestModeEndpointsOnly) {
    for (const auto& [url, code_wanted] :
         std::initializer_list<std::pair<const char*, const char*>>{
             {"http://127.0.0.1:9/hook", "webhook_url_not_https"},
             {"https://127.0.0.1:9/hook", "webhook_url_private_address"},
             {"https://[::1]:9/hook", "webhook_url_private_address"},
             {"https://localhost/hook", "webhook_url_private_address"}}) {
        const std::string body = std::string(R"({"url":")") + url + R"("})";
        auto r = send("POST", "/v1/webhook-endpoints", body, kLiveKey);
        EXPECT_EQ(r.status, 400) << url << " " << r.body;
        EXPECT_EQ(code(r), code_wanted) << url;
        EXPECT_NE(r.body.find("test-mode endpoints in the dev stack only"), std::string::npos)
            << r.body;
        auto patched = send("PATCH", "/v1/webhook-endpoints/" + kLive, body, kLiveKey);
        EXPECT_EQ(patched.status, 400) << url << " " << patched.body;
        EXPECT_EQ(code(patched), code_wanted) << url;
    }
    EXPECT_TRUE(store_.calls.empty()) << store_.calls.front();
    // A private address is refused for a test key too, and its message does not blame the mode.
    auto priv =
        send("POST", "/v1/webhook-endpoints", R"({"url":"https://10.0.0.1/hook"})", kLiveKey);
    EXPECT_EQ(code(priv), "webhook_url_private_address");
    EXPECT_EQ(priv.body.find("test-mode"), std::string::npos) << priv.body;

    auto test = send("POST", "/v1/webhook-endpoints", R"({"url":"http://127.0.0.1:9/hook"})");
    ASSERT_EQ(test.status, 201) << test.body;
    EXPECT_EQ(store_.endpoints.back().mode, Mode::test);
    auto test_patch =
        send("PATCH", "/v1/webhook-endpoints/" + kMine, R"({"url":"http://[::1]:9/hook"})");
    EXPECT_EQ(test_patch.status, 200) << test_patch.body;
}

// Every IPv6 spelling of an internal IPv4 address (mapped, translated, compatible, NAT64, local
// NAT64, 6to4, Teredo), the documentation and other special-purpose blocks: refused through the
// URL check the routes and `duepay admin webhook` share, with or without the dev flag.
TEST_F(WebhooksApiTest, EmbeddedAndSpecialPurposeAddressesAreRefused) {
    const std::vector<std::string> loopback = {"https://[::ffff:0:7f00:1]/",
                                               "https://[::ffff:127.0.0.1]/",
                                               "https://[::7f00:1]/",
                                               "https://[64:ff9b::7f00:1]/",
                                               "https://[2002:7f00:1::]/",
                                               "https://[64:ff9b:1:7f00:0:100::]/",
                                               "https://[::ffff:0:7f00:1]:8443/"};
    const std::vector<std::string> inside = {
        "https://[::ffff:0:a00:1]/",
        "https://[::ffff:0:a9fe:a9fe]/",
        "https://[::ffff:169.254.169.254]/latest/meta-data/",
        "https://[::ffff:a00:1]/",
        "https://[64:ff9b::a9fe:a9fe]/",
        "https://[64:ff9b:1::a00:1]/",
        "https://[64:ff9b:1::a9fe:a9fe]/",
        "https://[64:ff9b:1:a00:0:100::]/",
        "https://[64:ff9b:1:808:8:800::]/",  // 8.8.8.8 through a local translator
        "https://[2002:a00:1::]/",
        "https://[2002:a9fe:a9fe::1]/",
        "https://[2001:0:808:808::f5ff:fffe]/",  // Teredo, client 10.0.0.1
        "https://[2001:0:808:808::f7f7:f7f7]/",  // Teredo, both global: never
        "https://[3fff::1]/",
        "https://[5f00::1]/",
        "https://[100::1]/",
        "https://[2001:db8::1]/",
        "https://[2001:2::1]/",
        "https://192.0.2.1/",
        "https://198.51.100.7/",
        "https://203.0.113.9/",
        "https://192.88.99.1/"};
    auto refused = [](const std::string& url, bool insecure, Mode mode) {
        auto r = infra::webhooks::check_endpoint_url(url, insecure, mode);
        return r ? r->code : std::string("accepted");
    };
    for (const auto& url : loopback) {
        EXPECT_EQ(refused(url, false, Mode::test), "webhook_url_private_address") << url;
        EXPECT_EQ(refused(url, true, Mode::live), "webhook_url_private_address") << url;
        auto r = send("POST", "/v1/webhook-endpoints", R"({"url":")" + url + R"("})", kLiveKey);
        EXPECT_EQ(code(r), "webhook_url_private_address") << url;
    }
    for (const auto& url : inside) {
        for (const bool insecure : {false, true}) {
            for (const auto mode : {Mode::test, Mode::live}) {
                EXPECT_EQ(refused(url, insecure, mode), "webhook_url_private_address") << url;
            }
        }
        auto r = send("POST", "/v1/webhook-endpoints", R"({"url":")" + url + R"("})");
        EXPECT_EQ(code(r), "webhook_url_private_address") << url;
    }
    EXPECT_TRUE(store_.calls.empty()) << store_.calls.front();
    // Global forms stay accepted.
    for (const std::string url : {"https://[::ffff:8.8.8.8]/", "https://[64:ff9b::808:808]/",
                                  "https://[2002:808:808::1]/", "https://8.8.8.8/"}) {
        EXPECT_EQ(refused(url, false, Mode::live), "accepted") << url;
    }
}

TEST_F(WebhooksApiTest, AnUnreachableStoreIsStoreUnavailableForTheRouterTo503) {
    store_.unavailable = true;
    EXPECT_THROW(send("GET", "/v1/webhook-endpoints"), ports::StoreUnavailable);
}

}  // namespace
}  // namespace duepay::api
