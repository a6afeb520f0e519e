// The Postgres adapter of the WebhookEndpoints port (api/http/ports.hpp, ADR 0198), used by the
// /v1/webhook-* routes and by `duepay admin webhook`: one transaction of the pool per call over
// webhook_store, the rows translated into the port's vocabulary. An unreachable database is
// DatabaseUnavailable (the pool's retry, then the throw); no driver exception leaves it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/http/ports.hpp"
#include "infra/postgres/pool.hpp"

namespace duepay::infra::postgres {

class PgWebhookEndpoints final : public api::WebhookEndpoints {
  public:
    explicit PgWebhookEndpoints(ConnectionPool& pool) : pool_(pool) {}

    api::WebhookEndpoint create(const api::WebhookEndpoint& endpoint) override;
    std::vector<api::WebhookEndpoint> list(
        const api::ProjectId& project, api::Mode mode, std::size_t limit,
        const std::optional<std::string>& starting_after) override;
    std::optional<api::WebhookEndpoint> find(const api::ProjectId& project, api::Mode mode,
                                             const std::string& id) override;
    std::optional<api::WebhookEndpoint> update(const api::ProjectId& project, api::Mode mode,
                                               const std::string& id,
                                               const api::WebhookEndpointPatch& patch) override;
    bool remove(const api::ProjectId& project, api::Mode mode, const std::string& id) override;
    std::optional<api::WebhookEndpoint> rotate_secret(const api::ProjectId& project, api::Mode mode,
                                                      const std::string& id,
                                                      const std::string& secret,
                                                      std::chrono::seconds overlap) override;
    bool send_test(const api::ProjectId& project, api::Mode mode, const std::string& endpoint_id,
                   const domain::webhooks::WebhookEvent& event) override;
    bool redeliver(const api::ProjectId& project, api::Mode mode, const std::string& event_id,
                   const std::string& endpoint_id) override;
    std::optional<std::vector<api::WebhookAttempt>> attempts(
        const api::ProjectId& project, api::Mode mode, const std::string& endpoint_id,
        std::size_t limit, std::optional<std::int64_t> before) override;

  private:
    ConnectionPool& pool_;
};

}  // namespace duepay::infra::postgres
