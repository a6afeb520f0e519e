// The dashboard's webhooks pages (docs/dashboard.md "Webhooks"), in the current mode (test/live):
//   GET  /p/:projectId/webhooks                         endpoints, health, the create form
//   POST /p/:projectId/webhooks                         create: the secret is shown once (201)
//   GET  /p/:projectId/webhooks/:endpointId[?before=N]  one endpoint, its delivery log (paged)
//   POST /p/:projectId/webhooks/:endpointId             edit url, events, description
//   POST .../:endpointId/{disable,enable,test,redeliver}  (enable is also the re-enable after an
//                                                          automatic disable)
//   GET  .../:endpointId/delete, POST .../delete        the confirmation, the delete
//   POST .../:endpointId/rotate                         a new secret, shown once (200); the
//                                                       previous one signs for the overlap given
// Reading is every member's; every POST needs manage_webhooks (domain/accounts/member_role:
// developer and up), else 403 and nothing changes. The rules are the REST routes' (URL: infra/
// webhooks/endpoints, the other fields: domain/webhooks/endpoint_fields) and the store calls the
// same statements (ports::DashboardWebhooks), each change audited with the wallet and session.
// A POST other than create and rotate answers 303 to the page with a one-time flash cookie.
#pragma once

#include <functional>
#include <string>

#include "api/dashboard/project_scope.hpp"
#include "domain/ports/dashboard_webhooks.hpp"

namespace duepay::api::dashboard {

struct WebhookPagesDeps {
    ports::DashboardWebhooks* store = nullptr;
    bool allow_insecure = false;  // DUEPAY_WEBHOOK_ALLOW_INSECURE=1 (dev), test-mode endpoints only
    std::function<std::int64_t()> now_ms;
};

void add_webhook_routes(RouteTable& routes, const ProjectScope& scope,
                        const WebhookPagesDeps& deps);

// The charge page's "Webhook deliveries" section for the charge `invoice_id` of the context's
// project and mode; empty without a store.
std::string webhook_deliveries_section(ports::DashboardWebhooks* store, const ProjectContext& ctx,
                                       const std::string& invoice_id);

}  // namespace duepay::api::dashboard
