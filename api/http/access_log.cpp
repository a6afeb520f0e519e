#include "api/http/access_log.hpp"

#include <array>
#include <charconv>
#include <cstdio>
#include <string>
#include <unordered_map>

#include "infra/metrics/metrics.hpp"

namespace duepay::api {
namespace {

// `value`, or its first `max_bytes` and "..." (made in `room`).
std::string_view clipped(std::string_view value, std::size_t max_bytes, std::string& room) {
    if (value.size() <= max_bytes) return value;
    room.assign(value.substr(0, max_bytes)).append("...");
    return room;
}

// The access log line's fields, each given to `field(key, value)`: written straight into the
// record, without a Fields vector and a copy of each value first (CPU per request).
template <class Field>
void each_access_field(std::string_view request_id, std::string_view method, std::string_view path,
                       int status, std::chrono::steady_clock::duration latency, Field&& field) {
    std::string room;
    field("request_id", clipped(request_id, 128, room));
    field("method", clipped(method, 16, room));
    field("path", clipped(path, 200, room));
    std::array<char, 16> digits{};
    const auto digits_end = std::to_chars(digits.data(), digits.data() + digits.size(), status).ptr;
    field("status", std::string_view(digits.data(), digits_end));
    std::array<char, 32> ms{};
    const int n = std::snprintf(ms.data(), ms.size(), "%.2f",
                                std::chrono::duration<double, std::milli>(latency).count());
    field("latency_ms", std::string_view(ms.data(), static_cast<std::size_t>(n)));
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
    // label list or allocation per request (CPU per request). The registry is asked once per series
    // and thread; its series live as long as the process, and route labels are a bounded set.
    thread_local std::string key;
    thread_local std::unordered_map<std::string, infra::metrics::Histogram*> series;
    key.assign(role);
    key += '\n';
    const auto route_at = key.size();
    append_route_label(key, path, status);
    const auto route_size = key.size() - route_at;
    std::array<char, 16> digits{};
    const auto digits_end = std::to_chars(digits.data(), digits.data() + digits.size(), status).ptr;
    key += '\n';
    key.append(digits.data(), digits_end);
    auto it = series.find(key);
    if (it == series.end()) {
        auto& histogram = infra::metrics::registry().histogram(
            "duepay_http_request_duration_seconds",
            "Time from a whole request to its answer, by role, route and status",
            {{"role", std::string(role)},
             {"route", key.substr(route_at, route_size)},
             {"status", std::string(digits.data(), digits_end)}});
        it = series.emplace(key, &histogram).first;
    }
    it->second->observe(std::chrono::duration<double>(latency).count());
}

infra::log::Fields access_log_fields(std::string_view request_id, std::string_view method,
                                     std::string_view path, int status,
                                     std::chrono::steady_clock::duration latency) {
    infra::log::Fields fields;
    each_access_field(request_id, method, path, status, latency,
                      [&](std::string_view key, std::string_view value) {
                          fields.emplace_back(std::string(key), std::string(value));
                      });
    return fields;
}

void write_access_log(std::string_view role, std::string_view request_id, std::string_view method,
                      std::string_view path, int status,
                      std::chrono::steady_clock::duration latency) {
    infra::log::Record record(role, infra::log::Level::info);
    if (!infra::log::enabled(infra::log::Level::info)) return;
    each_access_field(
        request_id, method, path, status, latency,
        [&](std::string_view key, std::string_view value) { record.with(key, value); });
    record << "request";
}

}  // namespace duepay::api
