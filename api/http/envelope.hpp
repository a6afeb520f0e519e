// The response envelope (docs/product.md): {"success","data","error","meta"}. Every failure carries
// a stable meta.code (docs/api-errors.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/http/api_types.hpp"

namespace duepay::api {

// 2xx with `data_json` (already serialised JSON object) as data.
ApiResponse success_response(int status, std::string_view data_json);

// A failure: data null, error = message, meta = {code[, retryAfterMs]}; with retryAfterMs also a
// Retry-After header (seconds, rounded up).
ApiResponse error_response(int status, std::string_view code, std::string_view message,
                           std::optional<long long> retry_after_ms = std::nullopt);

// 400 with `code` (a rejected input).
ApiResponse bad_request(std::string_view code, std::string_view message);

}  // namespace duepay::api
