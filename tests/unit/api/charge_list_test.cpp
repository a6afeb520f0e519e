// GET /v1/charges, the pure part (api/http/charge_list.hpp), table by table: the cursor codec,
// the RFC 3339 parser and every query parameter's rule; and the unknown-field helpers.
#include "api/http/charge_list.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "api/http/request_fields.hpp"

namespace duepay::api {
namespace {

const std::string kId = "0x" + std::string(62, 'a') + "0f";

TEST(ListCursor, RoundTripsAndIsOpaqueText) {
    for (std::int64_t us : {std::int64_t{0}, std::int64_t{1'795'305'600'123'456},
                            std::int64_t{253'402'300'799'999'999},
                            std::int64_t{-62'135'596'800'000'000}, std::int64_t{-1}}) {
        const ListPosition p{us, kId};
        const auto text = encode_list_cursor(p);
        EXPECT_EQ(text.size(), 83u) << text;
        EXPECT_EQ(text.rfind("c1_", 0), 0u) << text;
        auto back = decode_list_cursor(text);
        ASSERT_TRUE(back) << text;
        EXPECT_EQ(back->created_us, us);
        EXPECT_EQ(back->invoice_id, kId);
    }
}

TEST(ListCursor, RefusesWhatItCannotHaveProduced) {
    const auto good = encode_list_cursor({1'795'305'600'123'456, kId});
    std::string upper = good;
    upper[10] = 'A';
    std::string bad_char = good;
    bad_char[40] = 'g';
    const std::string cases[] = {
        "",
        "c1_",
        good.substr(0, good.size() - 1),
        good + "0",
        std::string("c2_") + good.substr(3),
        std::string("C1_") + good.substr(3),
        upper,
        bad_char,
        std::string("0x") + good.substr(2),
        std::string(83, '0'),
        std::string("c1_7fffffffffffffff") + good.substr(19),  // past year 9999
        std::string("c1_8000000000000000") + good.substr(19),  // before year 1
    };
    for (const auto& c : cases) EXPECT_FALSE(decode_list_cursor(c)) << c;
}

TEST(Rfc3339, ParsesToUnixMicroseconds) {
    struct Case {
        const char* text;
        std::int64_t us;
    };
    const Case cases[] = {
        {"1970-01-01T00:00:00Z", 0},
        {"1970-01-01t00:00:01z", 1'000'000},
        {"2026-11-23T10:00:00Z", 1'795'428'000'000'000},
        {"2026-11-23T17:00:00+07:00", 1'795'428'000'000'000},
        {"2026-11-23T05:30:00-04:30", 1'795'428'000'000'000},
        {"2026-11-23T10:00:00.5Z", 1'795'428'000'500'000},
        {"2026-11-23T10:00:00.123456789Z", 1'795'428'000'123'456},
        {"2024-02-29T00:00:00Z", 1'709'164'800'000'000},
        {"1969-12-31T23:59:59Z", -1'000'000},
    };
    for (const auto& c : cases) {
        auto us = parse_rfc3339_micros(c.text);
        ASSERT_TRUE(us) << c.text;
        EXPECT_EQ(*us, c.us) << c.text;
    }
}

TEST(Rfc3339, RefusesMalformedAndOutOfRange) {
    for (const char* text : {"",
                             "2026-11-23",
                             "2026-11-23T10:00:00",
                             "2026-11-23 10:00:00Z",
                             "2026-11-23T10:00Z",
                             "2026-13-01T00:00:00Z",
                             "2026-00-01T00:00:00Z",
                             "2026-02-29T00:00:00Z",
                             "2026-04-31T00:00:00Z",
                             "2026-11-23T24:00:00Z",
                             "2026-11-23T10:60:00Z",
                             "2026-11-23T10:00:60Z",
                             "2026-11-23T10:00:00.Z",
                             "2026-11-23T10:00:00.1234567890Z",
                             "2026-11-23T10:00:00 07:00",
                             "2026-11-23T10:00:00+0700",
                             "2026-11-23T10:00:00+24:00",
                             "2026-11-23T10:00:00Zjunk",
                             "0000-01-01T00:00:00Z",
                             "+2026-11-23T10:00:00Z",
                             "1795428000"}) {
        EXPECT_FALSE(parse_rfc3339_micros(text)) << text;
    }
}

KeyOwner owner() {
    KeyOwner o;
    o.project_id = ProjectId{"prj_a"};
    o.mode = Mode::test;
    return o;
}

domain::Result<ChargeListQuery> parse(const std::string& query) {
    ApiRequest request;
    request.method = "GET";
    request.path = "/v1/charges";
    request.query = query;
    return parse_list_query(request, owner());
}

std::string code_of(const domain::Result<ChargeListQuery>& r) {
    if (r) return "accepted";
    EXPECT_FALSE(r.error().message.empty());
    return r.error().code;
}

TEST(ListQuery, DefaultsAndScope) {
    auto r = parse("");
    ASSERT_EQ(code_of(r), "accepted");
    const auto& q = r.value();
    EXPECT_EQ(q.project_id, ProjectId{"prj_a"});
    EXPECT_EQ(q.mode, Mode::test);
    EXPECT_EQ(q.limit, 20u);
    EXPECT_FALSE(q.status || q.created_gte_us || q.created_lt_us || q.reference || q.chain_id ||
                 q.metadata_json || q.after);
}

TEST(ListQuery, EveryFilterIsParsed) {
    const auto cursor = encode_list_cursor({42, kId});
    auto r = parse("limit=100&cursor=" + cursor +
                   "&status=paid&createdGte=2026-11-23T10:00:00Z"
                   "&createdLt=2026-11-23T17:00:00%2B07:00&reference=order+1%2F2&chainId=80002"
                   "&metadata%5Border_id%5D=A-1&metadata[cust]=c%209");
    ASSERT_EQ(code_of(r), "accepted");
    const auto& q = r.value();
    EXPECT_EQ(q.limit, 100u);
    ASSERT_TRUE(q.after);
    EXPECT_EQ(q.after->created_us, 42);
    EXPECT_EQ(q.after->invoice_id, kId);
    EXPECT_EQ(q.status, domain::charge::Status::paid);
    EXPECT_EQ(q.created_gte_us, 1'795'428'000'000'000);
    EXPECT_EQ(q.created_lt_us, 1'795'428'000'000'000);
    EXPECT_EQ(q.reference, "order 1/2");
    EXPECT_EQ(q.chain_id, 80002u);
    EXPECT_EQ(q.metadata_json, R"({"cust":"c 9","order_id":"A-1"})");
}

TEST(ListQuery, EachBadValueHasItsCode) {
    struct Case {
        std::string query;
        std::string code;
    };
    const Case cases[] = {
        {"limit=0", "invalid_limit"},
        {"limit=101", "invalid_limit"},
        {"limit=", "invalid_limit"},
        {"limit=1e2", "invalid_limit"},
        {"limit=-1", "invalid_limit"},
        {"limit=5&limit=6", "invalid_limit"},
        {"cursor=", "invalid_cursor"},
        {"cursor=abc", "invalid_cursor"},
        {"status=", "invalid_status"},
        {"status=PAID", "invalid_status"},
        {"status=paid,expired", "invalid_status"},
        {"status=paid&status=expired", "invalid_status"},
        {"createdGte=yesterday", "invalid_timestamp"},
        {"createdLt=2026-11-23T17:00:00+07:00", "invalid_timestamp"},  // '+' read as a space
        {"createdLt=1795428000", "invalid_timestamp"},
        {"reference=" + std::string(256, 'r'), "invalid_reference"},
        {"reference=%00", "invalid_reference"},
        {"reference=%FF", "invalid_reference"},
        {"chainId=0", "invalid_chain_id"},
        {"chainId=080002", "invalid_chain_id"},
        {"chainId=abc", "invalid_chain_id"},
        {"chainId=", "invalid_chain_id"},
        {"metadata[bad key]=v", "invalid_metadata"},
        {"metadata[]=v", "invalid_metadata"},
        {"metadata[a=v", "invalid_metadata"},
        {"metadata[a]=1&metadata[a]=2", "invalid_metadata"},
        {"metadata[a]=" + std::string(501, 'v'), "invalid_metadata"},
        {"metadata[a]=%00", "invalid_metadata"},
        {"Status=paid", "unknown_field"},
        {"starting_after=x", "unknown_field"},
        {"limit=5&refrence=A-1", "unknown_field"},
        {"metadata=x", "unknown_field"},
    };
    for (const auto& c : cases) EXPECT_EQ(code_of(parse(c.query)), c.code) << c.query;
}

TEST(ListQuery, AMetadataFilterOfTwentyKeysIsTheMost) {
    std::string query;
    for (int i = 0; i < 20; ++i) {
        query += "&metadata[k";
        query += std::to_string(i);
        query += "]=v";
    }
    EXPECT_EQ(code_of(parse(query.substr(1))), "accepted");
    EXPECT_EQ(code_of(parse(query.substr(1) + "&metadata[k20]=v")), "invalid_metadata");
}

TEST(UnknownFields, TheFieldIsNamedInTheMessage) {
    ApiRequest request;
    request.query = "limit=5&refrence=A-1";
    auto r = reject_unknown_params(request, {"limit", "reference"});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400);
    EXPECT_NE(r->body.find("query parameter refrence is not a field"), std::string::npos)
        << r->body;
    EXPECT_NE(r->body.find(R"("code":"unknown_field")"), std::string::npos) << r->body;
    request.query = "limit=5&reference=A-1&metadata[x]=1";
    EXPECT_FALSE(reject_unknown_params(request, {"limit", "reference"}, "metadata["));
    request.query = "bad%0Aname=1";
    r = reject_unknown_params(request, {"limit"});
    ASSERT_TRUE(r);
    EXPECT_NE(r->body.find(R"(bad\\x0aname)"), std::string::npos) << r->body;

    rapidjson::Document doc;
    doc.Parse(R"({"chainId":1,"fiat":{"currency":"USD","amont":"1.00"}})");
    EXPECT_FALSE(reject_unknown_members(doc, {"chainId", "fiat"}));
    auto nested = reject_unknown_members(doc["fiat"], {"currency", "amount"}, "fiat");
    ASSERT_TRUE(nested);
    EXPECT_NE(nested->body.find("body field fiat.amont is not a field"), std::string::npos)
        << nested->body;
}

}  // namespace
}  // namespace duepay::api
