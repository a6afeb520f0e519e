// The events API's routing, cursor and pages over the MerchantEvents port (api/http/events_api.hpp;
// the doubles of tests/doubles/). The SQL and the paging over a real Postgres are tested in
// tests/integration/merchant (events.test.mjs).
#include "api/http/events_api.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "api/http/envelope.hpp"
#include "tests/doubles/api_ports.hpp"
#include "tests/unit/api/surface.hpp"

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

TEST(EventsApi, MethodsRoutesAndKeysAreCheckedBeforeAnyQuery) {
    NoKeys keys;
    doubles::FakeMerchantEvents store;
    EventsApi api(EventsApiDeps{&store});
    test::Surface surface(keys, api);
    auto r = surface.call(request("POST", "/v1/events"));
    EXPECT_EQ(r.status, 405);
    EXPECT_EQ(r.headers["allow"], "GET");
    EXPECT_NE(r.body.find(R"("code":"method_not_allowed")"), std::string::npos);
    for (const std::string& path : {"/v1/events/" + kId + "/more", std::string("/v1/eventsx"),
                                    std::string("/v1/event"), std::string("/v1/events/")}) {
        r = surface.call(request("GET", path));
        EXPECT_EQ(r.status, 404) << path;
        EXPECT_NE(r.body.find(R"("code":"route_not_found")"), std::string::npos);
    }
    r = surface.call(request("GET", "/v1/events"));
    EXPECT_EQ(r.status, 401);
    r = surface.call(request("GET", "/v1/events/" + kId, "dp_test_" + std::string(48, '0')));
    EXPECT_EQ(r.status, 401);
    EXPECT_EQ(keys.lookups, 1);
    EXPECT_TRUE(store.queries.empty());
}

TEST(EventsApi, ItsStoreIsRequiredAtStartUp) {
    EXPECT_THROW(EventsApi(EventsApiDeps{nullptr}), std::invalid_argument);
}

TEST(EventsApi, CursorRoundTripsAndRefusesAnythingElse) {
    const EventPosition p{1'795'737'600'123, kId};
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

std::string event_id(char c) { return "evt_" + std::string(48, c); }

struct EventsFixture : ::testing::Test {
    const std::string key = "dp_test_" + std::string(48, '1');
    doubles::FakeKeys keys;
    doubles::FakeMerchantEvents store;
    EventsApi api{EventsApiDeps{&store}};
    test::Surface surface{keys, api};

    void SetUp() override {
        keys.add(key, doubles::key_owner("key_1", "prj_a", Mode::test));
        const auto add = [&](const char* project, Mode mode, char c, std::int64_t ms) {
            const auto id = event_id(c);
            store.stored.push_back({ProjectId{project},
                                    mode,
                                    {{ms, id}, R"({"id":")" + id + R"(","type":"invoice.paid"})"}});
        };
        add("prj_a", Mode::test, 'c', 3000);
        add("prj_b", Mode::test, 'x', 2500);  // another project's
        add("prj_a", Mode::live, 'y', 2200);  // the same project's live event
        add("prj_a", Mode::test, 'b', 2000);
        add("prj_a", Mode::test, 'a', 1000);
    }
    ApiResponse get(const std::string& path_and_query) {
        auto r = request("GET", "/v1/events", key);
        const auto q = path_and_query.find('?');
        r.path = path_and_query.substr(0, q);
        if (q != std::string::npos) r.query = path_and_query.substr(q + 1);
        return surface.call(r);
    }
};

TEST_F(EventsFixture, FindAnswersOnlyTheKeysProjectAndMode) {
    auto r = get("/v1/events/" + event_id('b'));
    EXPECT_EQ(r.status, 200);
    EXPECT_NE(r.body.find(event_id('b')), std::string::npos) << r.body;
    EXPECT_EQ(get("/v1/events/" + event_id('x')).status, 404);  // prj_b's
    r = get("/v1/events/" + event_id('y'));                     // live
    EXPECT_EQ(r.status, 404);
    EXPECT_NE(r.body.find(R"("code":"event_not_found")"), std::string::npos) << r.body;
    EXPECT_EQ(get("/v1/events/evt_short").status, 404);
}

TEST_F(EventsFixture, PagesAskOneMoreAndCarryTheCursorOfTheLastEventShown) {
    auto r = get("/v1/events?limit=2&type=invoice.paid&createdGte=1970-01-01T00:00:01Z");
    ASSERT_EQ(r.status, 200) << r.body;
    ASSERT_EQ(store.queries.size(), 1u);
    const auto& q = store.queries[0];
    EXPECT_EQ(q.project_id.value, "prj_a");
    EXPECT_EQ(q.mode, Mode::test);
    EXPECT_EQ(q.limit, 3u);  // one more tells whether there is a next page
    EXPECT_EQ(q.type, "invoice.paid");
    EXPECT_EQ(q.created_gte_ms, 1000);
    EXPECT_FALSE(q.after.has_value());
    EXPECT_NE(r.body.find(event_id('c')), std::string::npos);
    EXPECT_NE(r.body.find(event_id('b')), std::string::npos);
    EXPECT_EQ(r.body.find(event_id('a')), std::string::npos) << "a third item on a page of 2";
    const auto cursor = encode_event_cursor({2000, event_id('b')});
    EXPECT_NE(r.body.find(R"("hasMore":true,"nextCursor":")" + cursor + "\""), std::string::npos)
        << r.body;

    r = get("/v1/events?cursor=" + cursor);
    ASSERT_EQ(r.status, 200) << r.body;
    ASSERT_TRUE(store.queries.back().after.has_value());
    EXPECT_EQ(store.queries.back().after->occurred_ms, 2000);
    EXPECT_EQ(store.queries.back().after->id, event_id('b'));
    EXPECT_EQ(store.queries.back().limit, 21u);  // the default page of 20
    EXPECT_NE(r.body.find(R"("hasMore":false,"nextCursor":null)"), std::string::npos) << r.body;
}

TEST_F(EventsFixture, BadParametersAreRefusedBeforeTheStoreIsAsked) {
    for (const auto& [query, code] : std::vector<std::pair<std::string, std::string>>{
             {"limit=0", "invalid_limit"},
             {"cursor=zz", "invalid_cursor"},
             {"type=webhook.test", "invalid_event_type"},
             {"createdGte=yesterday", "invalid_created_gte"},
             {"colour=red", "unknown_field"}}) {
        auto r = get("/v1/events?" + query);
        EXPECT_EQ(r.status, 400) << query;
        EXPECT_NE(r.body.find(R"("code":")" + code + "\""), std::string::npos) << r.body;
    }
    EXPECT_TRUE(store.queries.empty());
}

}  // namespace
}  // namespace duepay::api
