// The access log line of one request (docs/security.md "Logs"): every value a client chose is
// escaped, so a request cannot forge a log line, a field or a terminal escape sequence.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace duepay::api {

// Bytes 0x20..0x7e pass, except '"' -> \" and '\' -> \\; every other byte (controls, DEL,
// non-ASCII) becomes \xHH. At most `max_bytes` input bytes are written; a longer value ends in
// "..." (the truncation is visible).
std::string escape_log_value(std::string_view value, std::size_t max_bytes = 200);

// `api request_id=.. method=".." path=".." status=.. latency_ms=..\n`, method and path escaped and
// quoted (the request id is already restricted to [A-Za-z0-9._-], api/http/request_id.hpp).
std::string access_log_line(std::string_view request_id, std::string_view method,
                            std::string_view path, int status,
                            std::chrono::steady_clock::duration latency);

}  // namespace duepay::api
