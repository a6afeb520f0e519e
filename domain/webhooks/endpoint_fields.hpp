// The rules of an endpoint's fields besides its URL (endpoint_url.hpp), shared by the REST routes
// (api/http/webhooks_api.cpp) and the dashboard's webhooks pages (api/dashboard/webhooks_routes):
// the event types it subscribes to, its description and how long a rotated secret keeps signing
// (docs/webhooks.md). Rejections carry the REST meta.code.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "domain/result.hpp"

namespace duepay::domain::webhooks {

inline constexpr std::size_t kMaxDescriptionLength = 255;
inline constexpr long long kDefaultSecretOverlapSeconds = 86400;
inline constexpr long long kMaxSecretOverlapSeconds = 7LL * 86400;

// A non-empty list of known types (kWebhookEventTypes), duplicates dropped, in the order given.
// Code: invalid_webhook_events.
Result<std::vector<std::string>> check_event_types(const std::vector<std::string_view>& types);

// At most kMaxDescriptionLength bytes of strict UTF-8 without NUL (a form field is not checked
// for UTF-8 before this; a JSON body is). Code: invalid_description.
Result<std::string> check_description(std::string_view description);

// How long the previous secret keeps signing after a rotation: 0 to kMaxSecretOverlapSeconds.
// Code: invalid_expires_in.
Result<long long> check_secret_overlap(long long seconds);

}  // namespace duepay::domain::webhooks
