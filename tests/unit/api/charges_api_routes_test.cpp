// The reads and routes of ChargesApi: authentication, 404/405, reads scoped to the key's project
// and mode, the list page, unknown query parameters.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <stdexcept>
#include <utility>
#include <vector>

#include "api/http/charge_list.hpp"
#include "tests/unit/api/charges_api_fixture.hpp"

namespace duepay::api::test {
namespace {

TEST_F(ChargesApiTest, MissingOrUnknownKeyIs401WithTheSpecMessage) {
    for (const char* key : {static_cast<const char*>(nullptr), "dp_test_nope"}) {
        auto r = call("GET", "/v1/charges/" + kId + "/status", "", key);
        EXPECT_EQ(r.status, 401);
        EXPECT_EQ(json(r)["error"].GetString(), std::string("invalid API key"));
        EXPECT_EQ(code_of(r), "invalid_api_key");
    }
}

TEST_F(ChargesApiTest, BearerHeaderIsAcceptedAndKeyLookupsAreCached) {
    reader_.rows[kId] = ChargeView{};
    reader_.rows[kId].project_id = ProjectId{"prj_a"};
    reader_.rows[kId].mode = Mode::test;
    reader_.rows[kId].status = Status::pending;
    ApiRequest request;
    request.method = "GET";
    request.path = "/v1/charges/" + kId + "/status";
    request.headers["authorization"] = std::string("Bearer ") + kTestKey;
    int status = 0;
    surface_->handle(request, [&](ApiResponse r) { status = r.status; });
    EXPECT_EQ(status, 200);
    surface_->handle(request, [&](ApiResponse r) { status = r.status; });
    EXPECT_EQ(keys_.lookups, 1);
    // The scheme is case-insensitive (RFC 9110), as the edge's ambiguity check reads it.
    request.headers["authorization"] = std::string("bEaReR ") + kTestKey;
    surface_->handle(request, [&](ApiResponse r) { status = r.status; });
    EXPECT_EQ(status, 200);
}

TEST_F(ChargesApiTest, UnknownRouteIs404AndWrongMethodIs405WithAllow) {
    auto a = call("GET", "/v2/nothing");
    EXPECT_EQ(a.status, 404);
    EXPECT_EQ(code_of(a), "route_not_found");
    auto b = call("GET", "/v1/invoices");
    EXPECT_EQ(b.status, 405);
    EXPECT_EQ(b.headers["allow"], "POST");
    EXPECT_EQ(code_of(b), "method_not_allowed");
    auto c = call("DELETE", "/v1/charges/" + kId);
    EXPECT_EQ(c.status, 405);
    EXPECT_EQ(c.headers["allow"], "GET");
}

TEST_F(ChargesApiTest, ReadsAreScopedToTheKeysProject) {
    ChargeView row;
    row.invoice_id = kId;
    row.project_id = ProjectId{"prj_other"};
    row.mode = Mode::test;
    row.status = Status::paid;
    reader_.rows[kId] = row;
    auto a = call("GET", "/v1/charges/" + kId + "/status");
    EXPECT_EQ(a.status, 404);
    EXPECT_EQ(code_of(a), "charge_not_found");
    EXPECT_EQ(call("GET", "/v1/charges/" + kId).status, 404);
    reader_.rows[kId].project_id = ProjectId{"prj_a"};
    auto b = call("GET", "/v1/charges/" + kId + "/status");
    ASSERT_EQ(b.status, 200);
    EXPECT_EQ(b.body, R"({"success":true,"data":{"invoiceId":")" + kId +
                          R"(","status":"paid"},"error":null})");
    auto upper = "0x" + std::string(64, 'F');
    EXPECT_EQ(code_of(call("GET", "/v1/charges/" + upper + "/status")), "charge_not_found");
    EXPECT_EQ(code_of(call("GET", "/v1/charges/0x1234/status")), "invalid_invoice_id");
}

TEST_F(ChargesApiTest, ReadsAreScopedToTheKeysModeAsCreatesAre) {
    ChargeView row;
    row.invoice_id = kId;
    row.project_id = ProjectId{"prj_a"};
    row.mode = Mode::live;
    row.chain_id = domain::ChainId{137};
    row.status = Status::pending;
    reader_.rows[kId] = row;
    for (const std::string& path : {"/v1/charges/" + kId, "/v1/charges/" + kId + "/status"}) {
        auto test_read = call("GET", path, "", kTestKey);
        EXPECT_EQ(test_read.status, 404) << path;
        EXPECT_EQ(code_of(test_read), "charge_not_found") << path;
    }
    EXPECT_EQ(call("GET", "/v1/charges/" + kId + "/status", "", kLiveKey).status, 200);
    reader_.rows[kId].mode = Mode::test;
    reader_.rows[kId].chain_id = domain::ChainId{80002};
    EXPECT_EQ(call("GET", "/v1/charges/" + kId + "/status", "", kTestKey).status, 200);
    auto live_read = call("GET", "/v1/charges/" + kId, "", kLiveKey);
    EXPECT_EQ(live_read.status, 404);
    EXPECT_EQ(code_of(live_read), "charge_not_found");
}

TEST_F(ChargesApiTest, TheListRouteAnswersAPageOfFullReadsWithoutIntents) {
    FakeLister lister;
    for (int i = 0; i < 3; ++i) {
        ChargeView row;
        row.invoice_id = std::string("0x").append(63, 'a').append(std::to_string(i));
        row.project_id = ProjectId{"prj_a"};
        row.mode = Mode::test;
        row.chain_id = domain::ChainId{80002};
        row.status = Status::pending;
        row.payment_mode = PaymentMode::wallet;
        row.amount = domain::TokenAmount{5};
        row.token = doubles::address("0x5FbDB2315678afecb367f032d93F642f64180aa3");
        row.merchant = doubles::address("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
        row.metadata_json =
            std::string(R"({"order_id": "A-)").append(std::to_string(i)).append("\"}");
        lister.rows.push_back({row, 1'000'000 - i});
    }
    auto deps = deps_;
    deps.lister = &lister;
    use(deps);
    auto get = [&](const std::string& query, const char* key = kTestKey) {
        ApiRequest request;
        request.method = "GET";
        request.path = "/v1/charges";
        request.query = query;
        request.headers["x-api-key"] = key;
        return surface_->call(request);
    };
    auto page = get("limit=2&status=pending");
    ASSERT_EQ(page.status, 200) << page.body;
    ASSERT_EQ(lister.queries.size(), 1u);
    EXPECT_EQ(lister.queries[0].project_id, ProjectId{"prj_a"});
    EXPECT_EQ(lister.queries[0].mode, Mode::test);
    EXPECT_EQ(lister.queries[0].limit, 3u);  // the page and one more
    EXPECT_EQ(lister.queries[0].status, Status::pending);
    auto d = json(page);
    const auto& data = d["data"];
    ASSERT_EQ(data["items"].Size(), 2u);
    EXPECT_TRUE(data["hasMore"].GetBool());
    const auto cursor = decode_list_cursor(data["nextCursor"].GetString());
    ASSERT_TRUE(cursor);
    EXPECT_EQ(cursor->created_us, 1'000'000 - 1);
    EXPECT_EQ(cursor->invoice_id, lister.rows[1].charge.invoice_id);
    const auto& item = data["items"][0];
    EXPECT_EQ(std::string(item["invoiceId"].GetString()), lister.rows[0].charge.invoice_id);
    EXPECT_EQ(std::string(item["status"].GetString()), "pending");
    EXPECT_FALSE(item.HasMember("intent"));
    EXPECT_FALSE(item.HasMember("signature"));
    EXPECT_TRUE(item["branding"].IsObject());
    EXPECT_EQ(std::string(item["metadata"]["order_id"].GetString()), "A-0");

    auto last = get("limit=3");
    auto l = json(last);
    EXPECT_EQ(l["data"]["items"].Size(), 3u);
    EXPECT_FALSE(l["data"]["hasMore"].GetBool());
    EXPECT_TRUE(l["data"]["nextCursor"].IsNull());

    EXPECT_EQ(code_of(get("limit=0")), "invalid_limit");
    EXPECT_EQ(code_of(get("refrence=A-1")), "unknown_field");
    EXPECT_EQ(get("", "dp_test_unknown").status, 401);
    EXPECT_EQ(lister.queries.size(), 2u);  // refusals reach no query
    // The route is GET only; without a lister the API does not start (not a 404 at run time).
    auto refused = call("POST", "/v1/charges");
    EXPECT_EQ(refused.status, 405);
    EXPECT_EQ(refused.headers["allow"], "GET");
    auto without = deps_;
    without.lister = nullptr;
    EXPECT_THROW(ChargesApi{without}, std::invalid_argument);
}

TEST_F(ChargesApiTest, AnUnknownQueryParameterIs400OnTheCreateAndTheReads) {
    reader_.rows[kId].invoice_id = kId;
    reader_.rows[kId].project_id = ProjectId{"prj_a"};
    reader_.rows[kId].mode = Mode::test;
    reader_.rows[kId].status = Status::pending;
    for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
             {"POST", "/v1/invoices"},
             {"GET", "/v1/charges/" + kId},
             {"GET", "/v1/charges/" + kId + "/status"}}) {
        ApiRequest request;
        request.method = method;
        request.path = path;
        request.query = "expand=intent";
        request.body = R"({"chainId":80002,"amount":"5"})";
        request.headers["x-api-key"] = kTestKey;
        request.headers["content-type"] = "application/json";
        const auto out = surface_->call(request);
        EXPECT_EQ(out.status, 400) << path;
        EXPECT_EQ(code_of(out), "unknown_field") << path;
        EXPECT_NE(out.body.find("query parameter expand"), std::string::npos) << out.body;
    }
    EXPECT_TRUE(log_.records.empty());
    EXPECT_EQ(call("GET", "/v1/charges/" + kId + "/status").status, 200);
}

// The page is written into one buffer and each item's token and merchant addresses go through a
// per-thread memo of the last one rendered (docs/adr/0188, 0206): items with different tokens and
// merchants, one after another, each show their own EIP-55 form.
TEST_F(ChargesApiTest, ListItemsWithDifferentTokensEachShowTheirOwnTokenAddress) {
    FakeLister lister;
    const std::vector<std::string> tokens = {
        "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        "0x5FbDB2315678afecb367f032d93F642f64180aa3", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"};
    const std::vector<std::string> merchants = {
        "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"};
    ChargeView base;
    base.project_id = ProjectId{"prj_a"};
    base.mode = Mode::test;
    base.chain_id = domain::ChainId{80002};
    base.status = Status::paid;
    base.payment_mode = PaymentMode::wallet;
    base.amount = domain::TokenAmount{5};
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        ChargeView row = base;
        row.invoice_id = "0x" + std::string(63, 'b') + std::to_string(i);
        row.token = doubles::address(tokens[i]);
        row.merchant = doubles::address(merchants[i]);
        lister.rows.push_back({row, 2'000'000 - static_cast<std::int64_t>(i)});
    }
    auto deps = deps_;
    deps.lister = &lister;
    use(deps);
    ApiRequest request;
    request.method = "GET";
    request.path = "/v1/charges";
    request.headers["x-api-key"] = kTestKey;
    const auto page = surface_->call(request);
    ASSERT_EQ(page.status, 200) << page.body;
    auto d = json(page);
    const auto& items = d["data"]["items"];
    ASSERT_EQ(items.Size(), tokens.size());
    for (rapidjson::SizeType i = 0; i < items.Size(); ++i) {
        EXPECT_EQ(std::string(items[i]["tokenInfo"]["address"].GetString()), tokens[i])
            << "item " << i;
        EXPECT_EQ(std::string(items[i]["token"].GetString()), tokens[i]) << "item " << i;
        EXPECT_EQ(std::string(items[i]["merchant"].GetString()), merchants[i]) << "item " << i;
    }
}

}  // namespace
}  // namespace duepay::api::test
