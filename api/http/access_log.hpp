// The access log record of one request (docs/security.md "Logs"), written through infra/log
// (ADR 0130): every value a client chose is escaped there, so a request cannot forge a log line,
// a field or a terminal escape sequence.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "infra/log/log.hpp"

namespace duepay::api {

// request_id, method (at most 16 bytes), path (at most 200 bytes, a longer one ends in "..."),
// status, latency_ms (two decimals), in that order.
infra::log::Fields access_log_fields(std::string_view request_id, std::string_view method,
                                     std::string_view path, int status,
                                     std::chrono::steady_clock::duration latency);

// The route of a request for metric labels, with a bounded set of values: every path segment that
// is not one of the API's and checkout's fixed words becomes ":id" (/v1/charges/0xab../status ->
// /v1/charges/:id/status), at most 4 segments are kept, and a 404 or 405 is "unmatched".
std::string route_label(std::string_view path, int status);

// duepay_http_request_duration_seconds{role,route,status} (ADR 0131), observed once per answer.
void observe_request(std::string_view role, std::string_view path, int status,
                     std::chrono::steady_clock::duration latency);

// One info record of role `role` (the listener's name: api, checkout) with those fields and the
// message "request".
void write_access_log(std::string_view role, std::string_view request_id, std::string_view method,
                      std::string_view path, int status,
                      std::chrono::steady_clock::duration latency);

}  // namespace duepay::api
