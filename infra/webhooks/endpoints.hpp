// What the REST routes (api/http/webhooks_api.cpp) and `duepay admin webhook` share about
// endpoints: the URL check (syntax rules + the registration-time address check), new ids and
// secrets, and the JSON of endpoints and attempts, in the WebhookEndpoints port's vocabulary
// (domain/ports/api.hpp; docs/webhooks.md, schemas/openapi.yaml).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "domain/ports/api.hpp"
#include "domain/result.hpp"

namespace duepay::infra::webhooks {

// domain::webhooks::parse_endpoint_url, then check_host on the host (address_guard.hpp), for an
// endpoint of `mode`. `allow_insecure` (DUEPAY_WEBHOOK_ALLOW_INSECURE=1, the dev stack) lets
// http:// and loopback through for test-mode endpoints only: a live endpoint gets the same
// webhook_url_not_https / webhook_url_private_address as without it, its message saying why.
std::optional<domain::Error> check_endpoint_url(const std::string& url, bool allow_insecure,
                                                ports::Mode mode);

// "we_" + 24 hex from the CSPRNG.
std::string new_endpoint_id();
// "evt_" + 48 hex from the CSPRNG (webhook.test events).
std::string new_test_event_id();

bool is_endpoint_id(std::string_view id);
bool is_event_id(std::string_view id);

// data of the endpoint routes; the secret only when `with_secret` (create, rotation).
std::string endpoint_json(const ports::WebhookEndpoint& endpoint, bool with_secret);
std::string endpoint_list_json(const std::vector<ports::WebhookEndpoint>& endpoints, bool has_more);
std::string attempt_list_json(const std::vector<ports::WebhookAttempt>& attempts, bool has_more);

}  // namespace duepay::infra::webhooks
