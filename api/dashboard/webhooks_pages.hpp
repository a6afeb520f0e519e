// The webhooks pages of the dashboard (docs/dashboard.md "Webhooks"): a project's endpoints of
// the current mode with their health, one endpoint with its delivery log, the delete
// confirmation, and the charge page's "Webhook deliveries" section. Pure renderers in the style of
// dashboard_pages (every text escaped, every word from dashboard_messages); the routes
// (webhooks_routes.cpp) fetch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/dashboard/dashboard_pages.hpp"
#include "domain/ports/dashboard_webhooks.hpp"

namespace duepay::api::dashboard {

// What the pages show of one endpoint: the endpoint and its attempts of the health window.
struct EndpointRow {
    ports::WebhookEndpoint endpoint;
    domain::webhooks::AttemptCounts counts;
};

struct WebhooksPage {
    std::vector<EndpointRow> endpoints;  // of the chrome's mode, newest first
    bool can_manage = false;
    std::optional<std::string> flash;               // a message key (wh_flash_*)
    std::optional<std::string> error;               // a refused form, as the REST route words it
    std::optional<ports::WebhookEndpoint> created;  // with its secret: shown once
    // The create form as it was sent, when it was refused.
    std::string form_url;
    std::string form_description;
    std::vector<std::string> form_events;
};
std::string webhooks_page(const Chrome& c, const WebhooksPage& page);

struct EndpointPage {
    EndpointRow row;
    std::vector<ports::WebhookAttempt> attempts;  // newest first
    std::optional<std::int64_t> next_before;      // the next page's cursor
    bool can_manage = false;
    std::optional<std::string> flash;
    std::optional<std::string> error;
    std::optional<std::string> new_secret;  // after a rotation: shown once
};
std::string endpoint_page(const Chrome& c, const EndpointPage& page);

std::string delete_endpoint_page(const Chrome& c, const ports::WebhookEndpoint& endpoint);

// The charge page's section: each delivery of the charge's events, linked to its endpoint's log.
std::string charge_webhooks_section(const Chrome& c,
                                    const std::vector<ports::ChargeDelivery>& deliveries);

}  // namespace duepay::api::dashboard
