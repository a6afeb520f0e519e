// x-request-id: echo a well-formed incoming id (1..128 of [A-Za-z0-9._-]), else mint one.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace duepay::api {

bool is_valid_request_id(std::string_view id);

// "req_" + 24 random hex digits.
std::string new_request_id();

// The id to use for a request carrying `incoming` (if any).
std::string choose_request_id(const std::optional<std::string>& incoming);

}  // namespace duepay::api
