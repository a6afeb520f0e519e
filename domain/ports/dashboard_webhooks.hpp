// What the dashboard's webhooks pages need from the store (docs/dashboard.md "Webhooks"): the
// WebhookEndpoints port's calls (domain/ports/api.hpp, the same SQL as the REST routes), each
// change together with its account_audit row naming the wallet and session that made it, in one
// transaction; an endpoint's health counts and a charge's deliveries. The Postgres adapter is
// infra/postgres/webhook_endpoints (PgDashboardWebhooks). Every call throws StoreUnavailable when
// the store cannot be reached; an endpoint of another project or mode is never found.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "domain/ports/api.hpp"
#include "domain/ports/dashboard.hpp"
#include "domain/webhooks/delivery_log.hpp"

namespace duepay::ports {

// One delivery of one of a charge's events to one endpoint (webhook_deliveries).
struct ChargeDelivery {
    std::string endpoint_id;
    std::string endpoint_url;
    std::string event_id;
    std::string event_type;
    std::string state;  // pending | delivered | failed
    int attempts = 0;
    std::optional<int> last_status;
    std::optional<std::string> last_error;
    std::string updated_at;  // RFC 3339
};

// One endpoint's page: the endpoint, its health counts (as attempt_counts) and a page of its
// delivery log (as attempts).
struct EndpointLog {
    WebhookEndpoint endpoint;
    domain::webhooks::AttemptCounts counts;
    std::vector<WebhookAttempt> attempts;
};

class DashboardWebhooks {
  public:
    virtual ~DashboardWebhooks() = default;

    // The project's endpoints of `mode`, newest first, at most `limit`.
    virtual std::vector<WebhookEndpoint> endpoints(const ProjectId& project, Mode mode,
                                                   std::size_t limit) = 0;
    virtual std::optional<WebhookEndpoint> endpoint(const ProjectId& project, Mode mode,
                                                    const std::string& id) = 0;
    // As WebhookEndpoints::attempts (newest first, before the attempt id `before`).
    virtual std::optional<std::vector<WebhookAttempt>> attempts(
        const ProjectId& project, Mode mode, const std::string& endpoint_id, std::size_t limit,
        std::optional<std::int64_t> before) = 0;
    // The endpoint with its health counts and `limit` of its attempts (newest first, before the
    // attempt id `before`), in two statements, the endpoint found once; nullopt when it is not
    // the project's in this mode.
    virtual std::optional<EndpointLog> endpoint_log(const ProjectId& project, Mode mode,
                                                    const std::string& endpoint_id,
                                                    std::size_t limit,
                                                    std::optional<std::int64_t> before) = 0;
    // Per endpoint id: its attempts of the last kHealthWindowHours, at most kHealthAttemptCap of
    // the newest, and how many of them were delivered. Ids without an attempt are absent.
    virtual std::vector<std::pair<std::string, domain::webhooks::AttemptCounts>> attempt_counts(
        const std::vector<std::string>& endpoint_ids) = 0;
    // The deliveries of the charge's events (of the project and mode), newest first, at most
    // `limit`.
    virtual std::vector<ChargeDelivery> charge_deliveries(const ProjectId& project, Mode mode,
                                                          const std::string& invoice_id,
                                                          std::size_t limit) = 0;

    // ---- Changes, each audited (webhook_endpoint.* and webhook_delivery.redelivered) ----
    virtual WebhookEndpoint create(const WebhookEndpoint& endpoint,
                                   const DashboardActor& actor) = 0;
    virtual std::optional<WebhookEndpoint> update(const ProjectId& project, Mode mode,
                                                  const std::string& id,
                                                  const WebhookEndpointPatch& patch,
                                                  const DashboardActor& actor) = 0;
    virtual bool remove(const ProjectId& project, Mode mode, const std::string& id,
                        const DashboardActor& actor) = 0;
    virtual std::optional<WebhookEndpoint> rotate_secret(const ProjectId& project, Mode mode,
                                                         const std::string& id,
                                                         const std::string& secret,
                                                         std::chrono::seconds overlap,
                                                         const DashboardActor& actor) = 0;
    virtual bool send_test(const ProjectId& project, Mode mode, const std::string& endpoint_id,
                           const domain::webhooks::WebhookEvent& event,
                           const DashboardActor& actor) = 0;
    virtual bool redeliver(const ProjectId& project, Mode mode, const std::string& event_id,
                           const std::string& endpoint_id, const DashboardActor& actor) = 0;
};

}  // namespace duepay::ports
