#include "infra/postgres/webhook_endpoints.hpp"

#include <utility>

#include "infra/postgres/charge_store.hpp"
#include "infra/postgres/webhook_store.hpp"

namespace duepay::infra::postgres {
namespace {

std::string mode_text(ports::Mode mode) { return std::string(domain::events::to_string(mode)); }

ports::WebhookEndpoint endpoint_of(WebhookEndpoint e) {
    ports::WebhookEndpoint v;
    v.mode = stored_mode(e.mode);  // before the moves
    v.id = std::move(e.id);
    v.project_id = ports::ProjectId{std::move(e.project_id)};
    v.url = std::move(e.url);
    v.events = std::move(e.events);
    v.description = std::move(e.description);
    v.status = std::move(e.status);
    v.disabled_reason = std::move(e.disabled_reason);
    v.failing_since = std::move(e.failing_since);
    v.previous_secret_expires_at = std::move(e.previous_secret_expires_at);
    v.secret = std::move(e.secret);
    v.created_at = std::move(e.created_at);
    v.updated_at = std::move(e.updated_at);
    return v;
}

std::optional<ports::WebhookEndpoint> endpoint_of(std::optional<WebhookEndpoint> e) {
    if (!e) return std::nullopt;
    return endpoint_of(std::move(*e));
}

}  // namespace

ports::WebhookEndpoint PgWebhookEndpoints::create(const ports::WebhookEndpoint& endpoint) {
    WebhookEndpoint e;
    e.id = endpoint.id;
    e.project_id = endpoint.project_id.value;
    e.mode = mode_text(endpoint.mode);
    e.url = endpoint.url;
    e.events = endpoint.events;
    e.description = endpoint.description;
    e.secret = endpoint.secret;
    return endpoint_of(
        pool_.with_transaction([&](pqxx::work& tx) { return insert_webhook_endpoint(tx, e); }));
}

std::vector<ports::WebhookEndpoint> PgWebhookEndpoints::list(
    const ports::ProjectId& project, ports::Mode mode, std::size_t limit,
    const std::optional<std::string>& starting_after) {
    auto rows = pool_.with_transaction([&](pqxx::work& tx) {
        return list_webhook_endpoints(tx, project.value, mode_text(mode), limit, starting_after);
    });
    std::vector<ports::WebhookEndpoint> out;
    out.reserve(rows.size());
    for (auto& row : rows) out.push_back(endpoint_of(std::move(row)));
    return out;
}

std::optional<ports::WebhookEndpoint> PgWebhookEndpoints::find(const ports::ProjectId& project,
                                                               ports::Mode mode,
                                                               const std::string& id) {
    return endpoint_of(pool_.with_transaction([&](pqxx::work& tx) {
        return find_webhook_endpoint(tx, project.value, mode_text(mode), id);
    }));
}

std::optional<ports::WebhookEndpoint> PgWebhookEndpoints::update(
    const ports::ProjectId& project, ports::Mode mode, const std::string& id,
    const ports::WebhookEndpointPatch& patch) {
    const EndpointPatch p{patch.url, patch.events, patch.description, patch.status};
    return endpoint_of(pool_.with_transaction([&](pqxx::work& tx) {
        return update_webhook_endpoint(tx, project.value, mode_text(mode), id, p);
    }));
}

bool PgWebhookEndpoints::remove(const ports::ProjectId& project, ports::Mode mode,
                                const std::string& id) {
    return pool_.with_transaction([&](pqxx::work& tx) {
        return delete_webhook_endpoint(tx, project.value, mode_text(mode), id);
    });
}

std::optional<ports::WebhookEndpoint> PgWebhookEndpoints::rotate_secret(
    const ports::ProjectId& project, ports::Mode mode, const std::string& id,
    const std::string& secret, std::chrono::seconds overlap) {
    return endpoint_of(pool_.with_transaction([&](pqxx::work& tx) {
        return rotate_webhook_secret(tx, project.value, mode_text(mode), id, secret, overlap);
    }));
}

bool PgWebhookEndpoints::send_test(const ports::ProjectId& project, ports::Mode mode,
                                   const std::string& endpoint_id,
                                   const domain::webhooks::WebhookEvent& event) {
    const auto m = mode_text(mode);
    return pool_.with_transaction([&](pqxx::work& tx) {
        if (!find_webhook_endpoint(tx, project.value, m, endpoint_id)) return false;
        const WebhookEventRow row{event.id,     event.type,   project.value, m,
                                  std::nullopt, std::nullopt, event.body};
        enqueue_webhook_event_for(tx, row, endpoint_id);
        return true;
    });
}

bool PgWebhookEndpoints::redeliver(const ports::ProjectId& project, ports::Mode mode,
                                   const std::string& event_id, const std::string& endpoint_id) {
    return pool_.with_transaction([&](pqxx::work& tx) {
        return redeliver_webhook_event(tx, project.value, mode_text(mode), event_id, endpoint_id);
    });
}

std::optional<std::vector<ports::WebhookAttempt>> PgWebhookEndpoints::attempts(
    const ports::ProjectId& project, ports::Mode mode, const std::string& endpoint_id,
    std::size_t limit, std::optional<std::int64_t> before) {
    return pool_.with_transaction(
        [&](pqxx::work& tx) -> std::optional<std::vector<ports::WebhookAttempt>> {
            if (!find_webhook_endpoint(tx, project.value, mode_text(mode), endpoint_id))
                return std::nullopt;
            return list_webhook_attempts(tx, endpoint_id, limit, before);
        });
}

}  // namespace duepay::infra::postgres
