// What the REST routes (api/http/webhooks_api.cpp) and `duepay admin webhook` share about
// endpoints: the URL check (syntax rules + the registration-time address check) and new ids
// (docs/webhooks.md). Their JSON is the api's (api/http/webhook_endpoint_json.hpp).
#pragma once

#include <optional>
#include <string>

#include "domain/events/event.hpp"
#include "domain/result.hpp"

namespace duepay::infra::webhooks {

// domain::webhooks::parse_endpoint_url, then check_host on the host (address_guard.hpp), for an
// endpoint of `mode`. `allow_insecure` (DUEPAY_WEBHOOK_ALLOW_INSECURE=1, the dev stack) lets
// http:// and loopback through for test-mode endpoints only: a live endpoint gets the same
// webhook_url_not_https / webhook_url_private_address as without it, its message saying why.
std::optional<domain::Error> check_endpoint_url(const std::string& url, bool allow_insecure,
                                                domain::events::Mode mode);

// "we_" + 24 hex from the CSPRNG.
std::string new_endpoint_id();
// "evt_" + 48 hex from the CSPRNG (webhook.test events).
std::string new_test_event_id();

bool is_endpoint_id(std::string_view id);
bool is_event_id(std::string_view id);

}  // namespace duepay::infra::webhooks
