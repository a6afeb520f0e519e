// The REST JSON of webhook endpoints and their delivery attempts, in the WebhookEndpoints port's
// vocabulary (domain/ports/api.hpp; docs/webhooks.md, schemas/openapi.yaml): what the routes
// (webhooks_api.cpp) and `duepay admin webhook` print.
#pragma once

#include <string>
#include <vector>

#include "domain/ports/api.hpp"

namespace duepay::api {

// data of the endpoint routes; the secret only when `with_secret` (create, rotation).
std::string endpoint_json(const ports::WebhookEndpoint& endpoint, bool with_secret);
std::string endpoint_list_json(const std::vector<ports::WebhookEndpoint>& endpoints, bool has_more);
std::string attempt_list_json(const std::vector<ports::WebhookAttempt>& attempts, bool has_more);

}  // namespace duepay::api
