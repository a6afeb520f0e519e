// The access log escapes what a client chose: no forged lines, fields or terminal escapes.
#include "api/http/access_log.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "infra/metrics/metrics.hpp"

namespace duepay::api {
namespace {

TEST(AccessLog, FieldsInOrderLongValuesClipped) {
    const auto fields = access_log_fields("req_1", "GET", std::string(300, 'p'), 404,
                                          std::chrono::microseconds(3456));
    ASSERT_EQ(fields.size(), 5u);
    EXPECT_EQ(fields[0], (std::pair<std::string, std::string>{"request_id", "req_1"}));
    EXPECT_EQ(fields[1].second, "GET");
    EXPECT_EQ(fields[2].second, std::string(200, 'p') + "...");
    EXPECT_EQ(fields[3].second, "404");
    EXPECT_EQ(fields[4], (std::pair<std::string, std::string>{"latency_ms", "3.46"}));
}

TEST(AccessLog, OneLineWithQuotedFieldsWhateverThePath) {
    std::vector<std::string> lines;
    infra::log::set_sink([&](std::string_view line) { lines.emplace_back(line); });
    write_access_log("checkout", "req_1", "GET", "/x\napi request_id=forged status=200\" z", 404,
                     std::chrono::milliseconds(3));
    infra::log::set_sink({});
    ASSERT_EQ(lines.size(), 1u);
    const std::string& line = lines[0];
    EXPECT_NE(line.find(" level=info role=checkout request_id=req_1 method=GET "
                        "path=\"/x\\x0aapi request_id=forged status=200\\\" z\" "
                        "status=404 latency_ms=3.00 msg=request\n"),
              std::string::npos)
        << line;
    EXPECT_EQ(line.find('\n'), line.size() - 1);
}

TEST(AccessLog, ClippedRequestIdAndMethodInTheLine) {
    std::vector<std::string> lines;
    infra::log::set_sink([&](std::string_view line) { lines.emplace_back(line); });
    write_access_log("api", std::string(130, 'r'), std::string(20, 'M'), "/v1/invoices", 201,
                     std::chrono::microseconds(1234));
    infra::log::set_sink({});
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find(" role=api request_id=" + std::string(128, 'r') +
                            "... method=" + std::string(16, 'M') +
                            "... path=/v1/invoices status=201 latency_ms=1.23 msg=request\n"),
              std::string::npos)
        << lines[0];
}

TEST(AccessLog, RouteLabelsHaveABoundedSetOfValues) {
    EXPECT_EQ(route_label("/v1/charges/0xab12/status", 200), "/v1/charges/:id/status");
    EXPECT_EQ(route_label("/v1/invoices", 201), "/v1/invoices");
    EXPECT_EQ(route_label("/healthz", 200), "/healthz");
    EXPECT_EQ(route_label("/c/0xab12", 200), "/c/:id");
    EXPECT_EQ(route_label("/v1/webhook-endpoints/we_1", 204), "/v1/webhook-endpoints/:id");
    EXPECT_EQ(route_label("/v1/anything-a-client-invents", 401), "/v1/:id");
    EXPECT_EQ(route_label("/a/b/x/y/e/f", 400), "/:id/:id/:id/:id/...");
    EXPECT_EQ(route_label("/v1/nowhere", 404), "unmatched");
    EXPECT_EQ(route_label("/v1/invoices", 405), "unmatched");
    EXPECT_EQ(route_label("-", 408), "unmatched");
}

// The series found per thread (observe_request's cache) are the registry's: each (role, route,
// status) counts its own requests, also from another thread.
TEST(AccessLog, ObservedRequestsLandInTheirOwnSeries) {
    using namespace std::chrono_literals;
    observe_request("t_cache", "/v1/charges/0xab12/status", 200, 2ms);
    observe_request("t_cache", "/v1/charges/0xcd34/status", 200, 2ms);
    observe_request("t_cache", "/v1/charges/0xab12/status", 503, 2ms);
    observe_request("t_cache", "/v1/nowhere", 404, 2ms);
    std::thread([] { observe_request("t_cache", "/v1/charges/0xef/status", 200, 2ms); }).join();
    const std::string text = infra::metrics::registry().render();
    const auto count = [&](const std::string& labels) {
        const std::string name = "duepay_http_request_duration_seconds_count{" + labels + "} ";
        const auto at = text.find(name);
        return at == std::string::npos
                   ? std::string("absent")
                   : text.substr(at + name.size(), text.find('\n', at) - at - name.size());
    };
    EXPECT_EQ(count(R"(role="t_cache",route="/v1/charges/:id/status",status="200")"), "3");
    EXPECT_EQ(count(R"(role="t_cache",route="/v1/charges/:id/status",status="503")"), "1");
    EXPECT_EQ(count(R"(role="t_cache",route="unmatched",status="404")"), "1");
}

}  // namespace
}  // namespace duepay::api
