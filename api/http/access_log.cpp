#include "api/http/access_log.hpp"

#include <cstdio>
#include <string>

namespace duepay::api {
namespace {

std::string clipped(std::string_view value, std::size_t max_bytes) {
    if (value.size() <= max_bytes) return std::string(value);
    return std::string(value.substr(0, max_bytes)) + "...";
}

}  // namespace

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
