#include "api/http/access_log.hpp"

#include <array>
#include <charconv>
#include <cstdio>
#include <string>
#include <unordered_map>

#include "infra/metrics/metrics.hpp"

namespace duepay::api {
namespace {

std::string clipped(std::string_view value, std::size_t max_bytes) {
    if (value.size() <= max_bytes) return std::string(value);
    return std::string(value.substr(0, max_bytes)) + "...";
}

constexpr std::array<std::string_view, 14> kWords{"v1",
                                                  "charges",
                                                  "invoices",
                                                  "status",
                                                  "webhook-endpoints",
                                                  "webhook-deliveries",
                                                  "events",
                                                  "healthz",
                                                  "checkout",
                                                  "c",
                                                  "static",
                                                  "redeliver",
                                                  "accent",
                                                  "rotate-secret"};

// route_label's rules, appended to `out` (no allocation once `out` has room).
void append_route_label(std::string& out, std::string_view path, int status) {
    if (status == 404 || status == 405 || !path.starts_with('/')) {
        out += "unmatched";
        return;
    }
    int segments = 0;
    std::size_t at = 1;
    while (at <= path.size() && segments < 4) {
        const auto end = std::min(path.find('/', at), path.size());
        const auto segment = path.substr(at, end - at);
        bool word = false;
        for (const auto w : kWords) word = word || segment == w;
        out += '/';
        out += word || segment.empty() ? segment : std::string_view(":id");
        ++segments;
        at = end + 1;
    }
    if (at <= path.size()) out += "/...";
}

}  // namespace

std::string route_label(std::string_view path, int status) {
    std::string out;
    append_route_label(out, path, status);
    return out;
}

void observe_request(std::string_view role, std::string_view path, int status,
                     std::chrono::steady_clock::duration latency) {
    // Each reactor thread finds the series of a (role, route, status) in its own map: no lock,
    // label list or allocation per request (issue 14). The registry is asked once per series and
    // thread; its series live as long as the process, and route labels are a bounded set.
    thread_local std::string key;
    thread_local std::unordered_map<std::string, infra::metrics::Histogram*> series;
    key.assign(role);
    key += '\n';
    const auto route_at = key.size();
    append_route_label(key, path, status);
    const auto route_size = key.size() - route_at;
    char digits[16];
    const auto digits_end = std::to_chars(digits, digits + sizeof digits, status).ptr;
    key += '\n';
    key.append(digits, digits_end);
    auto it = series.find(key);
    if (it == series.end()) {
        auto& histogram = infra::metrics::registry().histogram(
            "duepay_http_request_duration_seconds",
            "Time from a whole request to its answer, by role, route and status",
            {{"role", std::string(role)},
             {"route", key.substr(route_at, route_size)},
             {"status", std::string(digits, digits_end)}});
        it = series.emplace(key, &histogram).first;
    }
    it->second->observe(std::chrono::duration<double>(latency).count());
}

infra::log::Fields access_log_fields(std::string_view request_id, std::string_view method,
                                     std::string_view path, int status,
                                     std::chrono::steady_clock::duration latency) {
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.2f",
                  std::chrono::duration<double, std::milli>(latency).count());
    return {{"request_id", clipped(request_id, 128)},
            {"method", clipped(method, 16)},
            {"path", clipped(path, 200)},
            {"status", std::to_string(status)},
            {"latency_ms", ms}};
}

void write_access_log(std::string_view role, std::string_view request_id, std::string_view method,
                      std::string_view path, int status,
                      std::chrono::steady_clock::duration latency) {
    infra::log::Record record(role, infra::log::Level::info);
    if (!infra::log::enabled(infra::log::Level::info)) return;
    for (const auto& [key, value] : access_log_fields(request_id, method, path, status, latency)) {
        record.with(key, value);
    }
    record << "request";
}

}  // namespace duepay::api
