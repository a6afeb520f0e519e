// The Postgres adapter of the WebhookEndpoints port (domain/ports/api.hpp, ADR 0198), used by the
// /v1/webhook-* routes and by `duepay admin webhook`: one transaction of the pool per call over
// webhook_store (a read of one statement runs outside one), the rows translated into the port's
// vocabulary. An unreachable database is DatabaseUnavailable (the pool's retry, then the throw);
// no driver exception leaves it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "domain/ports/api.hpp"
#include "domain/ports/dashboard_webhooks.hpp"
#include "infra/postgres/pool.hpp"

namespace duepay::infra::postgres {

class PgWebhookEndpoints final : public ports::WebhookEndpoints {
  public:
    explicit PgWebhookEndpoints(ConnectionPool& pool) : pool_(pool) {}

    ports::WebhookEndpoint create(const ports::WebhookEndpoint& endpoint) override;
    std::vector<ports::WebhookEndpoint> list(
        const ports::ProjectId& project, ports::Mode mode, std::size_t limit,
        const std::optional<std::string>& starting_after) override;
    std::optional<ports::WebhookEndpoint> find(const ports::ProjectId& project, ports::Mode mode,
                                               const std::string& id) override;
    std::optional<ports::WebhookEndpoint> update(const ports::ProjectId& project, ports::Mode mode,
                                                 const std::string& id,
                                                 const ports::WebhookEndpointPatch& patch) override;
    bool remove(const ports::ProjectId& project, ports::Mode mode, const std::string& id) override;
    std::optional<ports::WebhookEndpoint> rotate_secret(const ports::ProjectId& project,
                                                        ports::Mode mode, const std::string& id,
                                                        const std::string& secret,
                                                        std::chrono::seconds overlap) override;
    bool send_test(const ports::ProjectId& project, ports::Mode mode,
                   const std::string& endpoint_id,
                   const domain::webhooks::WebhookEvent& event) override;
    bool redeliver(const ports::ProjectId& project, ports::Mode mode, const std::string& event_id,
                   const std::string& endpoint_id) override;
    std::optional<std::vector<ports::WebhookAttempt>> attempts(
        const ports::ProjectId& project, ports::Mode mode, const std::string& endpoint_id,
        std::size_t limit, std::optional<std::int64_t> before) override;

  private:
    ConnectionPool& pool_;
};

// The dashboard's adapter (domain/ports/dashboard_webhooks.hpp): the same statements as
// PgWebhookEndpoints, each change in one transaction with its account_audit row (the wallet and
// its session; never a secret), plus the health counts and a charge's deliveries.
class PgDashboardWebhooks final : public ports::DashboardWebhooks {
  public:
    explicit PgDashboardWebhooks(ConnectionPool& pool) : pool_(pool), endpoints_(pool) {}

    std::vector<ports::WebhookEndpoint> endpoints(const ports::ProjectId& project, ports::Mode mode,
                                                  std::size_t limit) override;
    std::optional<ports::WebhookEndpoint> endpoint(const ports::ProjectId& project,
                                                   ports::Mode mode,
                                                   const std::string& id) override;
    std::optional<std::vector<ports::WebhookAttempt>> attempts(
        const ports::ProjectId& project, ports::Mode mode, const std::string& endpoint_id,
        std::size_t limit, std::optional<std::int64_t> before) override;
    std::optional<ports::EndpointLog> endpoint_log(const ports::ProjectId& project,
                                                   ports::Mode mode, const std::string& endpoint_id,
                                                   std::size_t limit,
                                                   std::optional<std::int64_t> before) override;
    std::vector<std::pair<std::string, domain::webhooks::AttemptCounts>> attempt_counts(
        const std::vector<std::string>& endpoint_ids) override;
    std::vector<ports::ChargeDelivery> charge_deliveries(const ports::ProjectId& project,
                                                         ports::Mode mode,
                                                         const std::string& invoice_id,
                                                         std::size_t limit) override;

    ports::WebhookEndpoint create(const ports::WebhookEndpoint& endpoint,
                                  const ports::DashboardActor& actor) override;
    std::optional<ports::WebhookEndpoint> update(const ports::ProjectId& project, ports::Mode mode,
                                                 const std::string& id,
                                                 const ports::WebhookEndpointPatch& patch,
                                                 const ports::DashboardActor& actor) override;
    bool remove(const ports::ProjectId& project, ports::Mode mode, const std::string& id,
                const ports::DashboardActor& actor) override;
    std::optional<ports::WebhookEndpoint> rotate_secret(
        const ports::ProjectId& project, ports::Mode mode, const std::string& id,
        const std::string& secret, std::chrono::seconds overlap,
        const ports::DashboardActor& actor) override;
    bool send_test(const ports::ProjectId& project, ports::Mode mode,
                   const std::string& endpoint_id, const domain::webhooks::WebhookEvent& event,
                   const ports::DashboardActor& actor) override;
    bool redeliver(const ports::ProjectId& project, ports::Mode mode, const std::string& event_id,
                   const std::string& endpoint_id, const ports::DashboardActor& actor) override;

  private:
    ConnectionPool& pool_;
    PgWebhookEndpoints endpoints_;  // the reads, as the REST routes make them
};

}  // namespace duepay::infra::postgres
