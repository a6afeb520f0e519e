#include "api/http/access_log.hpp"

#include <cstdio>

namespace duepay::api {

std::string escape_log_value(std::string_view value, std::size_t max_bytes) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    const bool truncated = value.size() > max_bytes;
    if (truncated) value = value.substr(0, max_bytes);
    out.reserve(value.size() + 8);
    for (char ch : value) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(ch);
        } else if (c >= 0x20 && c <= 0x7e) {
            out.push_back(ch);
        } else {
            out.append("\\x").push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 0xf]);
        }
    }
    if (truncated) out.append("...");
    return out;
}

std::string access_log_line(std::string_view request_id, std::string_view method,
                            std::string_view path, int status,
                            std::chrono::steady_clock::duration latency) {
    char tail[64];
    const double ms = std::chrono::duration<double, std::milli>(latency).count();
    std::snprintf(tail, sizeof tail, " status=%d latency_ms=%.2f\n", status, ms);
    std::string line = "api request_id=";
    line.append(escape_log_value(request_id, 128))
        .append(" method=\"")
        .append(escape_log_value(method, 16))
        .append("\" path=\"")
        .append(escape_log_value(path, 200))
        .append("\"")
        .append(tail);
    return line;
}

}  // namespace duepay::api
