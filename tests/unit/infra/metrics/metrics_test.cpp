// The Prometheus text format as we write it (ADR 0131): HELP/TYPE once per family, labels escaped,
// cumulative histogram buckets with +Inf, _sum and _count; collectors; the ops answers.
#include "infra/metrics/metrics.hpp"

#include <gtest/gtest.h>

#include "infra/metrics/ops_server.hpp"

namespace duepay::infra::metrics {
namespace {

TEST(MetricsFormat, NumbersAndEscapes) {
    EXPECT_EQ(format_number(0), "0");
    EXPECT_EQ(format_number(0.005), "0.005");
    EXPECT_EQ(format_number(42), "42");
    EXPECT_EQ(format_number(1.0 / 0.0), "+Inf");
    EXPECT_EQ(format_number(-1.0 / 0.0), "-Inf");
    EXPECT_EQ(format_number(0.0 / 0.0), "NaN");
    EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    EXPECT_EQ(escape_help("x\\y\nz \"q\""), "x\\\\y\\nz \"q\"");
}

TEST(MetricsFormat, CountersGaugesAndHistograms) {
    Registry r;
    r.counter("t_events_total", "Events\nseen", {{"type", "charge.created"}}).inc();
    r.counter("t_events_total", "Events\nseen", {{"type", "charge.created"}}).inc(2);
    r.counter("t_events_total", "Events\nseen", {{"type", "we\"ird\\"}}).inc();
    r.gauge("t_depth", "Depth").set(7);
    auto& h = r.histogram("t_seconds", "Time", {{"route", "/x"}}, {0.1, 1});
    h.observe(0.05);
    h.observe(0.1);  // le is inclusive
    h.observe(5);
    EXPECT_EQ(r.render(),
              "# HELP t_depth Depth\n"
              "# TYPE t_depth gauge\n"
              "t_depth 7\n"
              "# HELP t_events_total Events\\nseen\n"
              "# TYPE t_events_total counter\n"
              "t_events_total{type=\"charge.created\"} 3\n"
              "t_events_total{type=\"we\\\"ird\\\\\"} 1\n"
              "# HELP t_seconds Time\n"
              "# TYPE t_seconds histogram\n"
              "t_seconds_bucket{route=\"/x\",le=\"0.1\"} 2\n"
              "t_seconds_bucket{route=\"/x\",le=\"1\"} 2\n"
              "t_seconds_bucket{route=\"/x\",le=\"+Inf\"} 3\n"
              "t_seconds_sum{route=\"/x\"} 5.15\n"
              "t_seconds_count{route=\"/x\"} 3\n");
}

TEST(MetricsFormat, CollectorsReadAtScrapeTimeUntilUnregistered) {
    Registry r;
    int lag = 3;
    {
        auto reg = r.collect("t_lag", "Lag", Type::gauge, [&] {
            return std::vector<Sample>{{{{"partition", "0"}}, double(lag)}};
        });
        lag = 5;
        EXPECT_EQ(r.render(), "# HELP t_lag Lag\n# TYPE t_lag gauge\nt_lag{partition=\"0\"} 5\n");
    }
    EXPECT_EQ(r.render(), "");  // no series, no family
}

TEST(MetricsFormat, BadNamesAndTypeClashesThrow) {
    Registry r;
    EXPECT_THROW(r.counter("1bad", "x"), std::invalid_argument);
    EXPECT_THROW(r.counter("ok_total", "x", {{"le", "1"}}), std::invalid_argument);
    EXPECT_THROW(r.counter("ok_total", "x", {{"bad-label", "1"}}), std::invalid_argument);
    r.counter("ok_total", "x");
    EXPECT_THROW(r.gauge("ok_total", "x"), std::invalid_argument);
}

TEST(OpsAnswers, RoutesAndReadiness) {
    Registry r;
    Readiness ready;
    r.gauge("t_up", "Up").set(1);
    EXPECT_EQ(ops_answer("GET", "/metrics", r, ready).body,
              "# HELP t_up Up\n# TYPE t_up gauge\nt_up 1\n");
    EXPECT_EQ(ops_answer("GET", "/healthz", r, ready).status, 200);
    EXPECT_EQ(ops_answer("GET", "/readyz", r, ready).status, 200);
    EXPECT_EQ(ops_answer("POST", "/metrics", r, ready).status, 405);
    EXPECT_EQ(ops_answer("GET", "/v1/charges", r, ready).status, 404);
    bool kafka_ok = false;
    {
        auto reg = ready.add("kafka", [&]() -> std::optional<std::string> {
            if (kafka_ok) return std::nullopt;
            return "no assignment yet";
        });
        const auto not_ready = ops_answer("GET", "/readyz", r, ready);
        EXPECT_EQ(not_ready.status, 503);
        EXPECT_EQ(not_ready.body, "kafka: no assignment yet\n");
        kafka_ok = true;
        EXPECT_EQ(ops_answer("GET", "/readyz", r, ready).status, 200);
        kafka_ok = false;
    }
    EXPECT_EQ(ops_answer("GET", "/readyz", r, ready).status, 200);  // the check went with its role
}

}  // namespace
}  // namespace duepay::infra::metrics
