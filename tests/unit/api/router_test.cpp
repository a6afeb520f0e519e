// The HTTP pipeline (api/http/router.hpp): matching, 404/405, the steps a route declares
// (415, 401, unknown query parameters), and the envelope for what a handler throws.
#include "api/http/router.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "api/http/auth.hpp"
#include "api/http/envelope.hpp"
#include "infra/postgres/pool.hpp"
#include "tests/doubles/api_ports.hpp"

namespace duepay::api {
namespace {

const std::string kKey = "dp_test_" + std::string(48, 'c');

ApiRequest request(std::string method, std::string path, std::string query = {}) {
    ApiRequest r;
    r.method = std::move(method);
    r.path = std::move(path);
    r.query = std::move(query);
    r.request_id = "req_test";
    return r;
}

std::string code_of(const ApiResponse& r) {
    const auto at = r.body.find(R"("code":")");
    return at == std::string::npos ? "" : r.body.substr(at + 8, r.body.find('"', at + 8) - at - 8);
}

RouteOptions open_route() {
    RouteOptions o;
    o.auth = Auth::none;
    return o;
}

TEST(RouteTable, MatchesLiteralAndParameterSegmentsExactly) {
    RouteTable t;
    t.add("GET", "/v1/charges/:id", open_route(), [](const RouteCall&) { return ApiResponse{}; });
    t.add("GET", "/v1/charges/:id/status", open_route(),
          [](const RouteCall&) { return ApiResponse{}; });
    auto m = t.match("GET", "/v1/charges/0xab/status");
    ASSERT_TRUE(m && m->route);
    EXPECT_EQ(m->route->pattern, "/v1/charges/:id/status");
    EXPECT_EQ(m->params, std::vector<std::string>{"0xab"});
    for (const char* path : {"/v1/charges", "/v1/charges/", "/v1/charges//status",
                             "/v1/charges/0xab/", "/v1/chargesx/0xab", "v1/charges/0xab", ""}) {
        EXPECT_FALSE(t.match("GET", path)) << path;
    }
}

TEST(RouteTable, AnotherMethodOfAKnownPathIsNamedInAllowInTheOrderDeclared) {
    RouteTable t;
    for (const char* method : {"GET", "PATCH", "DELETE"})
        t.add(method, "/v1/things/:id", open_route(),
              [](const RouteCall&) { return ApiResponse{}; });
    auto m = t.match("POST", "/v1/things/a");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->route, nullptr);
    EXPECT_EQ(m->allow, "GET, PATCH, DELETE");
}

TEST(RouteTable, ARouteDeclaredTwiceOrWithoutALeadingSlashIsABug) {
    RouteTable t;
    auto none = [](const RouteCall&) { return ApiResponse{}; };
    t.add("GET", "/a", open_route(), none);
    EXPECT_THROW(t.add("GET", "/a", open_route(), none), std::invalid_argument);
    EXPECT_THROW(t.add("GET", "a", open_route(), none), std::invalid_argument);
    EXPECT_NO_THROW(t.add("POST", "/a", open_route(), none));
}

class PipelineTest : public ::testing::Test {
  protected:
    PipelineTest() { keys_.add(kKey, doubles::key_owner("key_1", "prj_1", Mode::test)); }

    Pipeline make(RouteTable routes, PipelineSettings settings = {}) {
        return Pipeline(std::move(routes), &key_cache_, std::move(settings));
    }
    static std::vector<ApiResponse> answers(const Pipeline& p, const ApiRequest& r) {
        std::vector<ApiResponse> all;
        p.handle(r, [&](ApiResponse a) { all.push_back(std::move(a)); });
        return all;
    }
    static ApiResponse run(const Pipeline& p, const ApiRequest& r) {
        auto all = answers(p, r);
        EXPECT_EQ(all.size(), 1u);
        return all.empty() ? ApiResponse{} : all.front();
    }

    doubles::FakeKeys keys_;
    Authenticator key_cache_{keys_};
    int calls_ = 0;
};

TEST_F(PipelineTest, AKeyRouteWithoutAnAuthenticatorFailsAtStartUp) {
    RouteTable t;
    t.add("GET", "/x", {}, [](const RouteCall&) { return ApiResponse{}; });
    EXPECT_THROW(Pipeline(std::move(t), nullptr, {}), std::invalid_argument);
    RouteTable open;
    open.add("GET", "/x", open_route(), [](const RouteCall&) { return ApiResponse{}; });
    EXPECT_NO_THROW(Pipeline(std::move(open), nullptr, {}));
}

TEST_F(PipelineTest, StepsRunInOrderAndTheHandlerSeesOnlyWhatItDeclared) {
    RouteTable t;
    RouteOptions json;
    json.json_body = true;
    t.add("POST", "/v1/things", json, [this](const RouteCall& c) {
        ++calls_;
        EXPECT_EQ(c.key().project_id, ProjectId{"prj_1"});
        return success_response(201, "{}");
    });
    const auto p = make(std::move(t));
    EXPECT_EQ(code_of(run(p, request("POST", "/v1/nothing"))), "route_not_found");
    auto wrong = run(p, request("GET", "/v1/things"));
    EXPECT_EQ(wrong.status, 405);
    EXPECT_EQ(wrong.headers["allow"], "POST");
    // 415 comes before authentication: no key lookup for a body we would not read.
    auto r = request("POST", "/v1/things");
    EXPECT_EQ(run(p, r).status, 415);
    EXPECT_EQ(keys_.lookups, 0);
    r.headers["content-type"] = "Application/JSON; charset=utf-8";
    EXPECT_EQ(code_of(run(p, r)), "invalid_api_key");
    r.headers["x-api-key"] = kKey;
    r.query = "expand=x";
    auto unknown = run(p, r);
    EXPECT_EQ(code_of(unknown), "unknown_field");
    EXPECT_NE(unknown.body.find("query parameter expand"), std::string::npos) << unknown.body;
    EXPECT_EQ(calls_, 0);
    r.query.clear();
    EXPECT_EQ(run(p, r).status, 201);
    EXPECT_EQ(calls_, 1);
}

// A handler that answered and then threw: the envelope follows as a second call, which the
// edge drops (answering once on the wire is the edge's guarantee, api/http/http_edge.hpp).
TEST_F(PipelineTest, WhatAHandlerThrowsIsAnEnvelopeEvenAfterItAnswered) {
    RouteTable t;
    t.add("GET", "/down", open_route(), [](const RouteCall&) -> ApiResponse {
        throw infra::postgres::DatabaseUnavailable("connection refused");
    });
    t.add("GET", "/bug", open_route(),
          [](const RouteCall&) -> ApiResponse { throw std::runtime_error("secret detail"); });
    t.add_async("GET", "/twice", open_route(), [](const RouteCall&, Responder respond) {
        respond(success_response(200, "{}"));
        throw std::runtime_error("after the answer");
    });
    PipelineSettings s;
    s.retry_after_ms = 2500;
    const auto p = make(std::move(t), s);
    auto down = run(p, request("GET", "/down"));
    EXPECT_EQ(down.status, 503);
    EXPECT_EQ(code_of(down), "database_unavailable");
    EXPECT_EQ(down.headers["retry-after"], "3");
    EXPECT_NE(down.body.find(R"("retryAfterMs":2500)"), std::string::npos);
    auto bug = run(p, request("GET", "/bug"));
    EXPECT_EQ(bug.status, 500);
    EXPECT_EQ(code_of(bug), "internal_error");
    EXPECT_EQ(bug.body.find("secret detail"), std::string::npos);
    const auto twice = answers(p, request("GET", "/twice"));
    ASSERT_EQ(twice.size(), 2u);
    EXPECT_EQ(twice[0].status, 200);
    EXPECT_EQ(twice[1].status, 500);
    EXPECT_EQ(code_of(twice[1]), "internal_error");
}

TEST_F(PipelineTest, AdmitRunsFirstAndTheSurfaceHeadersGoOnEveryAnswer) {
    RouteTable t;
    RouteOptions any_query = open_route();
    any_query.own_query = true;
    t.add("GET", "/page", any_query, [](const RouteCall& c) {
        auto r = success_response(200, "{}");
        if (c.request.query == "own") r.headers["x-frame-options"] = "SAMEORIGIN";
        return r;
    });
    PipelineSettings s;
    s.admit = [](const ApiRequest& r) -> std::optional<ApiResponse> {
        if (r.remote == "10.0.0.9") return error_response(429, "rate_limited", "slow down");
        return std::nullopt;
    };
    s.headers = {{"x-frame-options", "DENY"}};
    const auto p = make(std::move(t), s);
    auto limited = request("GET", "/nowhere");
    limited.remote = "10.0.0.9";
    auto r = run(p, limited);
    EXPECT_EQ(r.status, 429);
    EXPECT_EQ(r.headers["x-frame-options"], "DENY");
    EXPECT_EQ(run(p, request("GET", "/nowhere")).headers["x-frame-options"], "DENY");
    EXPECT_EQ(run(p, request("GET", "/page", "own")).headers["x-frame-options"], "SAMEORIGIN");
}

}  // namespace
}  // namespace duepay::api
