// The events API's routing and cursor (api/http/events_api.hpp). The SQL and the paging over a
// real Postgres are tested in tests/integration/events (events.test.mjs).
#include "api/http/events_api.hpp"

#include <gtest/gtest.h>

#include "api/http/envelope.hpp"

namespace duepay::api {
namespace {

class NoKeys : public KeyDirectory {
  public:
    std::optional<KeyOwner> find(const KeyHash&) override {
        ++lookups;
        return std::nullopt;
    }
    int lookups = 0;
};

ApiRequest request(std::string method, std::string path, std::string key = {}) {
    ApiRequest r;
    r.method = std::move(method);
    r.path = std::move(path);
    if (!key.empty()) r.headers["x-api-key"] = key;
    return r;
}

const std::string kId = "evt_" + std::string(48, 'a');

TEST(EventsApi, OwnsOnlyItsPaths) {
    EXPECT_TRUE(EventsApi::owns("/v1/events"));
    EXPECT_TRUE(EventsApi::owns("/v1/events/" + kId));
    EXPECT_FALSE(EventsApi::owns("/v1/eventsx"));
    EXPECT_FALSE(EventsApi::owns("/v1/event"));
    EXPECT_FALSE(EventsApi::owns("/v1/webhook-endpoints"));
}

TEST(EventsApi, MethodsRoutesAndKeysAreCheckedBeforeAnyQuery) {
    NoKeys keys;
    EventsApi api(EventsApiDeps{&keys, nullptr});  // no pool: nothing below may reach Postgres
    auto r = api.handle(request("POST", "/v1/events"));
    EXPECT_EQ(r.status, 405);
    EXPECT_EQ(r.headers["allow"], "GET");
    EXPECT_NE(r.body.find(R"("code":"method_not_allowed")"), std::string::npos);
    r = api.handle(request("GET", "/v1/events/" + kId + "/more"));
    EXPECT_EQ(r.status, 404);
    EXPECT_NE(r.body.find(R"("code":"route_not_found")"), std::string::npos);
    r = api.handle(request("GET", "/v1/events"));
    EXPECT_EQ(r.status, 401);
    r = api.handle(request("GET", "/v1/events/" + kId, "dp_test_" + std::string(48, '0')));
    EXPECT_EQ(r.status, 401);
    EXPECT_EQ(keys.lookups, 1);
}

TEST(EventsApi, CursorRoundTripsAndRefusesAnythingElse) {
    const infra::postgres::MerchantEventPosition p{1'795'737'600'123, kId};
    const auto text = encode_event_cursor(p);
    EXPECT_EQ(text.find_first_not_of("0123456789abcdef"), std::string::npos) << text;
    const auto back = decode_event_cursor(text);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->occurred_ms, p.occurred_ms);
    EXPECT_EQ(back->id, p.id);
    auto hex = [](const std::string& plain) {
        static constexpr char kDigits[] = "0123456789abcdef";
        std::string out;
        for (unsigned char c : plain) {
            out += kDigits[c >> 4];
            out += kDigits[c & 15];
        }
        return out;
    };
    EXPECT_TRUE(decode_event_cursor(hex("5:" + kId)).has_value());
    for (const std::string& bad :
         {std::string(), std::string("zz"), "0x" + text, text.substr(1), hex(kId), hex(":" + kId),
          hex("-5:" + kId), hex("12a:" + kId), hex("5:evt_short"), hex("1234567890123456:" + kId),
          hex("5:" + kId + "0"), std::string(300, 'a')}) {
        EXPECT_FALSE(decode_event_cursor(bad).has_value()) << bad;
    }
}

}  // namespace
}  // namespace duepay::api
