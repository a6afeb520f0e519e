// The Idempotency-Key header of POST /v1/invoices and of refunds (docs/limits.md, ADR 0091): its
// syntax and the fingerprint that binds a key to one request. The claims themselves go through
// the IdempotencyKeys port (domain/ports/api.hpp).
#pragma once

#include <string>
#include <string_view>

#include "domain/ports/api.hpp"
#include "domain/result.hpp"

namespace duepay::api {

// 1 to 255 characters, each visible ASCII (0x21..0x7e). Code "invalid_idempotency_key" (400).
domain::Result<std::string> parse_idempotency_key(std::string_view header_value);

// SHA-256 over method, path and the raw body: the same key with other bytes is another request.
ports::RequestFingerprint request_fingerprint(std::string_view method, std::string_view path,
                                              std::string_view body);

}  // namespace duepay::api
