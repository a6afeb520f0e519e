// The project settings a merchant changes (PATCH /v1/project, `duepay admin project`): the rules of
// each field, one place for both ways in. Errors are values with the API's meta.code.
#pragma once

#include <string>
#include <string_view>

#include "domain/charge/create_rules.hpp"
#include "domain/result.hpp"

namespace duepay::domain::accounts {

// The default expiry of the project's charges: the bounds of a charge's own (create_rules.hpp).
inline constexpr int kMinPaymentWindowSeconds = static_cast<int>(charge::kMinExpiresInSeconds);
inline constexpr int kMaxPaymentWindowSeconds = static_cast<int>(charge::kMaxExpiresInSeconds);

// 1..120 code points of storable text (strict UTF-8, no NUL, no other control character).
// Error: invalid_name.
Result<std::string> check_project_name(std::string_view name);

// An absolute URL (domain::parse_http_url) of at most 500 characters; https only unless
// `allow_http` (the admin command keeps accepting http). Error: invalid_logo_url.
Result<std::string> check_logo_url(std::string_view url, bool allow_http);

// "#" + 6 hex digits, stored as given. Error: invalid_accent_color.
Result<std::string> check_accent_color(std::string_view color);

// kMinPaymentWindowSeconds..kMaxPaymentWindowSeconds. Error: invalid_payment_window.
Result<int> check_payment_window(long long seconds);

}  // namespace duepay::domain::accounts
