// Merchant search over REST against the real stack (docs/api.md): one
// `duepay dev` (api + projector) on a fresh topic, a project and test key of the suite's own so
// that the list holds exactly the charges this suite created. Metadata: carried, echoed, stored
// and refused (nothing appended); the list: keyset pages, filters, cursor, scoping.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "domain/hex.hpp"
#include "infra/postgres/account_store.hpp"
#include "infra/random/random.hpp"
#include "tests/integration/pipeline/dev_server_suite.hpp"

namespace duepay::tests {
namespace {

constexpr const char* kPayout = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

rapidjson::Document parse(const std::string& body) {
    rapidjson::Document d;
    d.Parse(body.c_str());
    return d;
}

std::string random_hex(std::size_t bytes_hex) {
    return domain::to_hex(infra::random::random_bytes<8>()).substr(2, bytes_hex);
}

class ChargesList : public DevServerSuite<ChargesList> {
  public:
    static constexpr const char* kServerName = "list";

  protected:
    // A project of this test alone (unmetered: no rate limit) with a test key.
    void SetUp() override {
        DevServerSuite<ChargesList>::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        project_ = "prj_it_list_" + random_hex(16);
        key_own_ = "dp_test_" + domain::to_hex(infra::random::random_bytes<24>()).substr(2);
        pqxx::connection conn(env_->database_url);
        pqxx::work tx(conn);
        infra::postgres::upsert_project(tx, {project_, "list it", "unmetered", kPayout});
        infra::postgres::upsert_api_key(tx, "key_" + project_, project_, "test",
                                        infra::random::sha256(key_own_), key_own_.substr(0, 12));
        tx.commit();
    }

    HttpResponse create(const std::string& body) const {
        return http("POST", url("/v1/invoices"),
                    {{"x-api-key", key_own_}, {"content-type", "application/json"}}, body);
    }
    HttpResponse get(const std::string& path) const {
        return http("GET", url(path), {{"x-api-key", key_own_}});
    }
    // A create that must succeed; returns the invoice id.
    std::string created(const std::string& body) const {
        auto r = create(body);
        EXPECT_EQ(r.status, 201) << body << " -> " << r.body;
        auto d = parse(r.body);
        if (r.status != 201 || !d.IsObject() || !d["data"].IsObject()) return "";
        return d["data"]["invoiceId"].GetString();
    }
    int charges_of_project() const {
        pqxx::connection conn(env_->database_url);
        pqxx::work tx(conn);
        return tx.exec_params1("select count(*) from charges where project_id = $1", project_)[0]
            .as<int>();
    }

    std::string project_;
    std::string key_own_;
};

// --- metadata (item 2) ---

TEST_F(ChargesList, MetadataIsEchoedByCreateAndReadAndStoredInTheReadModel) {
    auto r = create(R"({"chainId":80002,"amount":"1000","metadata":{"order_id":"A-1001",)"
                    R"("note":"กขค"}})");
    ASSERT_EQ(r.status, 201) << r.body;
    auto d = parse(r.body);
    const std::string id = d["data"]["invoiceId"].GetString();
    ASSERT_TRUE(d["data"]["metadata"].IsObject()) << r.body;
    EXPECT_EQ(std::string(d["data"]["metadata"]["order_id"].GetString()), "A-1001");
    EXPECT_EQ(std::string(d["data"]["metadata"]["note"].GetString()), "กขค");

    auto read = get("/v1/charges/" + id);
    ASSERT_EQ(read.status, 200) << read.body;
    EXPECT_NE(read.body.find(R"("metadata":{"note":"กขค","order_id":"A-1001"})"), std::string::npos)
        << read.body;

    pqxx::connection conn(env_->database_url);
    pqxx::work tx(conn);
    EXPECT_EQ(
        tx.exec_params1("select metadata->>'order_id' from charges where invoice_id = $1", id)[0]
            .as<std::string>(),
        "A-1001");
    // The journal holds the event as appended: data.metadata in charge.created.
    EXPECT_EQ(tx.exec_params1("select payload->'data'->'metadata'->>'note' from charge_events "
                              "where invoice_id = $1 and type = 'charge.created'",
                              id)[0]
                  .as<std::string>(),
              "กขค");
}

TEST_F(ChargesList, AChargeWithoutMetadataShowsAnEmptyObject) {
    const auto id = created(R"({"chainId":80002,"amount":"1000"})");
    ASSERT_FALSE(id.empty());
    auto read = get("/v1/charges/" + id);
    ASSERT_EQ(read.status, 200) << read.body;
    EXPECT_NE(read.body.find(R"("metadata":{})"), std::string::npos) << read.body;
}

TEST_F(ChargesList, InvalidMetadataIs400AndNothingIsAppended) {
    std::string many;
    for (int i = 0; i < 21; ++i) {
        if (i != 0) many += ',';
        many += "\"k";
        many += std::to_string(i);
        many += "\":\"v\"";
    }
    const std::string bad[] = {
        R"("metadata":"A-1")",
        R"("metadata":{"n":1})",
        R"("metadata":{"bad key":"v"})",
        R"("metadata":{")" + std::string(41, 'k') + R"(":"v"})",
        R"("metadata":{"v":")" + std::string(501, 'v') + R"("})",
        R"("metadata":{)" + many + "}",
    };
    for (const auto& field : bad) {
        expect_error_envelope(create(R"({"chainId":80002,"amount":"1000",)" + field + "}"), 400,
                              "invalid_metadata");
    }
    EXPECT_EQ(charges_of_project(), 0);
    // The largest valid metadata (20 values of 500 four-byte characters, ~40 KB) is accepted.
    std::string big;
    std::string emoji500;
    for (int i = 0; i < 500; ++i) emoji500 += "\xf0\x9f\x98\x80";
    for (int i = 0; i < 20; ++i) {
        if (i != 0) big += ',';
        big += '"';
        big += std::string(38, 'k');  // 40-character keys
        big += std::to_string(10 + i);
        big += "\":\"";
        big += emoji500;
        big += '"';
    }
    auto r = create(R"({"chainId":80002,"amount":"1000","metadata":{)" + big + "}}");
    EXPECT_EQ(r.status, 201) << r.body.substr(0, 300);
    EXPECT_EQ(charges_of_project(), 1);
}

// --- the list (item 1) ---

struct Page {
    std::vector<std::string> ids;
    std::vector<std::string> created_at;
    bool has_more = false;
    std::string next_cursor;
};

Page page_of(const HttpResponse& r) {
    Page p;
    EXPECT_EQ(r.status, 200) << r.body;
    auto d = parse(r.body);
    if (r.status != 200 || !d.IsObject() || !d["data"].IsObject()) return p;
    const auto& data = d["data"];
    for (const auto& item : data["items"].GetArray()) {
        p.ids.emplace_back(item["invoiceId"].GetString());
        p.created_at.emplace_back(item["createdAt"].GetString());
        EXPECT_FALSE(item.HasMember("intent")) << "a list item carries no signed intent";
        EXPECT_FALSE(item.HasMember("signature"));
        EXPECT_TRUE(item.HasMember("status") && item.HasMember("timeline") &&
                    item.HasMember("metadata"));
    }
    p.has_more = data["hasMore"].GetBool();
    if (data["nextCursor"].IsString()) p.next_cursor = data["nextCursor"].GetString();
    EXPECT_EQ(p.has_more, !p.next_cursor.empty());
    return p;
}

TEST_F(ChargesList, PagesAreNewestFirstWithNoItemTwiceAndNoneSkippedWhileChargesAreCreated) {
    std::vector<std::string> before;
    for (int i = 0; i < 12; ++i) {
        before.push_back(created(R"({"chainId":80002,"amount":")" + std::to_string(1000 + i) +
                                 R"(","metadata":{"batch":"one"}})"));
    }
    std::vector<std::string> seen;
    std::vector<std::string> created_at;
    std::vector<std::string> during;
    std::string cursor;
    int pages = 0;
    do {
        auto p = page_of(get("/v1/charges?limit=5" + (cursor.empty() ? "" : "&cursor=" + cursor)));
        seen.insert(seen.end(), p.ids.begin(), p.ids.end());
        created_at.insert(created_at.end(), p.created_at.begin(), p.created_at.end());
        cursor = p.next_cursor;
        // New charges arrive between pages: they are newer than any cursor, so never on a later
        // page, and nothing shifts.
        during.push_back(created(R"({"chainId":80002,"amount":"7"})"));
        ASSERT_LT(++pages, 10);
    } while (!cursor.empty());
    EXPECT_EQ(pages, 3);
    // Each charge that existed when paging began exactly once, newest first.
    ASSERT_EQ(seen.size(), before.size());
    EXPECT_TRUE(std::is_sorted(created_at.rbegin(), created_at.rend()));
    auto sorted_seen = seen;
    auto sorted_before = before;
    std::sort(sorted_seen.begin(), sorted_seen.end());
    std::sort(sorted_before.begin(), sorted_before.end());
    EXPECT_EQ(sorted_seen, sorted_before);
    EXPECT_EQ(seen.front(), before.back());
    EXPECT_EQ(seen.back(), before.front());
    // A fresh first page starts with what was created meanwhile.
    auto first = page_of(get("/v1/charges?limit=3"));
    ASSERT_EQ(first.ids.size(), 3u);
    EXPECT_EQ(first.ids[0], during.back());
    EXPECT_TRUE(first.has_more);
}

TEST_F(ChargesList, FiltersSelectExactlyTheMatchingCharges) {
    const auto a = created(R"({"chainId":80002,"amount":"1000","reference":"order-A",)"
                           R"("metadata":{"order_id":"A","channel":"web"}})");
    const auto b = created(R"({"chainId":80002,"amount":"1000","reference":"order-B",)"
                           R"("metadata":{"order_id":"B","channel":"web"}})");
    const auto c = created(R"({"chainId":80002,"amount":"1000","metadata":{"order_id":"C"}})");
    using Ids = std::vector<std::string>;
    EXPECT_EQ(page_of(get("/v1/charges?reference=order-A")).ids, Ids{a});
    EXPECT_EQ(page_of(get("/v1/charges?metadata[order_id]=B")).ids, Ids{b});
    EXPECT_EQ(page_of(get("/v1/charges?metadata%5Bchannel%5D=web")).ids, (Ids{b, a}));
    EXPECT_EQ(page_of(get("/v1/charges?metadata[channel]=web&metadata[order_id]=A")).ids, Ids{a});
    EXPECT_TRUE(page_of(get("/v1/charges?metadata[channel]=WEB")).ids.empty());
    EXPECT_EQ(page_of(get("/v1/charges?status=pending&chainId=80002")).ids, (Ids{c, b, a}));
    EXPECT_TRUE(page_of(get("/v1/charges?status=paid")).ids.empty());
    EXPECT_TRUE(page_of(get("/v1/charges?chainId=137")).ids.empty());
    // Created range: [createdAt of b, createdAt of c) holds b (and a when in the same ms).
    auto read = [&](const std::string& id) {
        return std::string(parse(get("/v1/charges/" + id).body)["data"]["createdAt"].GetString());
    };
    const auto at_b = read(b);
    const auto at_c = read(c);
    auto range = page_of(get("/v1/charges?createdGte=" + at_b + "&createdLt=" + at_c)).ids;
    EXPECT_TRUE(std::find(range.begin(), range.end(), b) != range.end());
    EXPECT_TRUE(std::find(range.begin(), range.end(), c) == range.end() || at_b == at_c);
    auto from_c = page_of(get("/v1/charges?createdGte=" + at_c)).ids;
    EXPECT_TRUE(std::find(from_c.begin(), from_c.end(), c) != from_c.end());
    EXPECT_TRUE(std::find(from_c.begin(), from_c.end(), a) == from_c.end() || at_b == at_c);
    EXPECT_TRUE(page_of(get("/v1/charges?createdLt=2000-01-01T00:00:00Z")).ids.empty());
    // Another project's key never sees these charges (the demo project's key).
    auto other = http("GET", url("/v1/charges?reference=order-A"), {{"x-api-key", *key_}});
    EXPECT_TRUE(page_of(other).ids.empty());
}

TEST_F(ChargesList, BadParametersAre400WithTheirCodes) {
    expect_error_envelope(get("/v1/charges?limit=101"), 400, "invalid_limit");
    expect_error_envelope(get("/v1/charges?cursor=nope"), 400, "invalid_cursor");
    expect_error_envelope(get("/v1/charges?status=done"), 400, "invalid_status");
    expect_error_envelope(get("/v1/charges?createdGte=yesterday"), 400, "invalid_timestamp");
    expect_error_envelope(get("/v1/charges?chainId=x"), 400, "invalid_chain_id");
    expect_error_envelope(get("/v1/charges?metadata[bad%20key]=1"), 400, "invalid_metadata");
    auto typo = get("/v1/charges?refrence=A");
    expect_error_envelope(typo, 400, "unknown_field");
    EXPECT_NE(typo.body.find("refrence"), std::string::npos) << typo.body;
    expect_error_envelope(http("GET", url("/v1/charges"), {}), 401, "invalid_api_key");
}

// --- no silent drops (item 7) ---

TEST_F(ChargesList, UnknownBodyFieldsAndQueryParametersAre400NamingThem) {
    auto typo = create(R"({"chainId":80002,"amount":"1000","refrence":"order-1"})");
    expect_error_envelope(typo, 400, "unknown_field");
    EXPECT_NE(typo.body.find("refrence"), std::string::npos) << typo.body;
    auto nested = create(R"({"chainId":80002,"fiat":{"currency":"USD","amont":"1.00"}})");
    expect_error_envelope(nested, 400, "unknown_field");
    EXPECT_NE(nested.body.find("fiat.amont"), std::string::npos) << nested.body;
    auto on_create = http("POST", url("/v1/invoices?expand=intent"),
                          {{"x-api-key", key_own_}, {"content-type", "application/json"}},
                          R"({"chainId":80002,"amount":"1000"})");
    expect_error_envelope(on_create, 400, "unknown_field");
    EXPECT_EQ(charges_of_project(), 0);  // nothing was created

    const auto id = created(R"({"chainId":80002,"amount":"1000"})");
    ASSERT_FALSE(id.empty());
    expect_error_envelope(get("/v1/charges/" + id + "?expand=intent"), 400, "unknown_field");
    expect_error_envelope(get("/v1/charges/" + id + "/status?x=1"), 400, "unknown_field");
    EXPECT_EQ(get("/v1/charges/" + id + "/status").status, 200);

    // Webhook endpoints: body and query alike; nothing is registered.
    auto endpoint = http("POST", url("/v1/webhook-endpoints"),
                         {{"x-api-key", key_own_}, {"content-type", "application/json"}},
                         R"({"url":"https://hooks.example/x","evnets":["invoice.paid"]})");
    expect_error_envelope(endpoint, 400, "unknown_field");
    EXPECT_NE(endpoint.body.find("evnets"), std::string::npos) << endpoint.body;
    expect_error_envelope(get("/v1/webhook-endpoints?limt=5"), 400, "unknown_field");
    auto listed = get("/v1/webhook-endpoints?limit=5");
    ASSERT_EQ(listed.status, 200) << listed.body;
    EXPECT_NE(listed.body.find(R"("items":[])"), std::string::npos) << listed.body;
}

}  // namespace
}  // namespace duepay::tests
