#include "infra/postgres/webhook_endpoints.hpp"

#include <utility>

#include "domain/events/json_writer.hpp"
#include "infra/postgres/account_store.hpp"
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

ports::WebhookEndpoint create_in(pqxx::work& tx, const ports::WebhookEndpoint& endpoint) {
    WebhookEndpoint e;
    e.id = endpoint.id;
    e.project_id = endpoint.project_id.value;
    e.mode = mode_text(endpoint.mode);
    e.url = endpoint.url;
    e.events = endpoint.events;
    e.description = endpoint.description;
    e.secret = endpoint.secret;
    return endpoint_of(insert_webhook_endpoint(tx, e));
}

bool send_test_in(pqxx::work& tx, const ports::ProjectId& project, ports::Mode mode,
                  const std::string& endpoint_id, const domain::webhooks::WebhookEvent& event) {
    const auto m = mode_text(mode);
    if (!find_webhook_endpoint(tx, project.value, m, endpoint_id)) return false;
    const WebhookEventRow row{event.id,     event.type,   project.value, m,
                              std::nullopt, std::nullopt, event.body};
    enqueue_webhook_event_for(tx, row, endpoint_id);
    return true;
}

std::optional<std::vector<ports::WebhookAttempt>> attempts_in(
    pqxx::work& tx, const ports::ProjectId& project, ports::Mode mode,
    const std::string& endpoint_id, std::size_t limit, std::optional<std::int64_t> before) {
    if (!find_webhook_endpoint(tx, project.value, mode_text(mode), endpoint_id))
        return std::nullopt;
    return list_webhook_attempts(tx, endpoint_id, limit, before);
}

AuditActor actor_of(const ports::DashboardActor& a) {
    return AuditActor::wallet(a.address, a.session_id);
}

// An audit row's changes: the endpoint and what the change set (never a secret).
std::string changes_json(
    const std::string& endpoint_id,
    std::initializer_list<std::pair<const char*, std::optional<std::string>>> fields,
    const std::optional<std::vector<std::string>>& events = std::nullopt) {
    rapidjson::StringBuffer b;
    domain::json::Writer w(b);
    w.StartObject();
    domain::json::str(w, "endpointId", endpoint_id);
    for (const auto& [name, value] : fields) {
        if (value) domain::json::str(w, name, *value);
    }
    if (events) {
        w.Key("events");
        w.StartArray();
        for (const auto& e : *events)
            w.String(e.c_str(), static_cast<rapidjson::SizeType>(e.size()));
        w.EndArray();
    }
    w.EndObject();
    return {b.GetString(), b.GetSize()};
}

}  // namespace

ports::WebhookEndpoint PgWebhookEndpoints::create(const ports::WebhookEndpoint& endpoint) {
    return pool_.with_transaction([&](pqxx::work& tx) { return create_in(tx, endpoint); });
}

std::vector<ports::WebhookEndpoint> PgWebhookEndpoints::list(
    const ports::ProjectId& project, ports::Mode mode, std::size_t limit,
    const std::optional<std::string>& starting_after) {
    auto rows = pool_.with_single_statement([&](pqxx::transaction_base& tx) {
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
    return endpoint_of(pool_.with_single_statement([&](pqxx::transaction_base& tx) {
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
    return pool_.with_transaction(
        [&](pqxx::work& tx) { return send_test_in(tx, project, mode, endpoint_id, event); });
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
        [&](pqxx::work& tx) { return attempts_in(tx, project, mode, endpoint_id, limit, before); });
}

// ---- PgDashboardWebhooks ----

std::vector<ports::WebhookEndpoint> PgDashboardWebhooks::endpoints(const ports::ProjectId& project,
                                                                   ports::Mode mode,
                                                                   std::size_t limit) {
    return endpoints_.list(project, mode, limit, std::nullopt);
}

std::optional<ports::WebhookEndpoint> PgDashboardWebhooks::endpoint(const ports::ProjectId& project,
                                                                    ports::Mode mode,
                                                                    const std::string& id) {
    return endpoints_.find(project, mode, id);
}

std::optional<std::vector<ports::WebhookAttempt>> PgDashboardWebhooks::attempts(
    const ports::ProjectId& project, ports::Mode mode, const std::string& endpoint_id,
    std::size_t limit, std::optional<std::int64_t> before) {
    return endpoints_.attempts(project, mode, endpoint_id, limit, before);
}

std::optional<ports::EndpointLog> PgDashboardWebhooks::endpoint_log(
    const ports::ProjectId& project, ports::Mode mode, const std::string& endpoint_id,
    std::size_t limit, std::optional<std::int64_t> before) {
    // Two statements outside a transaction (no BEGIN and COMMIT): the endpoint with its health,
    // then its log. They need no common snapshot: an endpoint deleted between them shows the
    // page of an endpoint without attempts, as a page read just before the delete would.
    return pool_.with_single_statement(
        [&](pqxx::transaction_base& tx) -> std::optional<ports::EndpointLog> {
            auto found =
                find_webhook_endpoint_with_health(tx, project.value, mode_text(mode), endpoint_id);
            if (!found) return std::nullopt;
            ports::EndpointLog log;
            log.endpoint = endpoint_of(std::move(found->first));
            log.counts = found->second;
            log.attempts = list_webhook_attempts(tx, endpoint_id, limit, before);
            return log;
        });
}

std::vector<std::pair<std::string, domain::webhooks::AttemptCounts>>
PgDashboardWebhooks::attempt_counts(const std::vector<std::string>& endpoint_ids) {
    return pool_.with_single_statement(
        [&](pqxx::transaction_base& tx) { return count_webhook_attempts(tx, endpoint_ids); });
}

std::vector<ports::ChargeDelivery> PgDashboardWebhooks::charge_deliveries(
    const ports::ProjectId& project, ports::Mode mode, const std::string& invoice_id,
    std::size_t limit) {
    return pool_.with_single_statement([&](pqxx::transaction_base& tx) {
        return list_charge_webhook_deliveries(tx, project.value, mode_text(mode), invoice_id,
                                              limit);
    });
}

ports::WebhookEndpoint PgDashboardWebhooks::create(const ports::WebhookEndpoint& endpoint,
                                                   const ports::DashboardActor& actor) {
    return pool_.with_transaction([&](pqxx::work& tx) {
        auto created = create_in(tx, endpoint);
        insert_account_audit(
            tx, created.project_id.value, actor_of(actor), "webhook_endpoint.created",
            changes_json(created.id, {{"mode", mode_text(created.mode)}, {"url", created.url}},
                         created.events));
        return created;
    });
}

std::optional<ports::WebhookEndpoint> PgDashboardWebhooks::update(
    const ports::ProjectId& project, ports::Mode mode, const std::string& id,
    const ports::WebhookEndpointPatch& patch, const ports::DashboardActor& actor) {
    const EndpointPatch p{patch.url, patch.events, patch.description, patch.status};
    return endpoint_of(pool_.with_transaction([&](pqxx::work& tx) {
        auto after = update_webhook_endpoint(tx, project.value, mode_text(mode), id, p);
        if (after) {
            const std::optional<std::string> description =
                patch.description ? std::optional<std::string>(patch.description->value_or(""))
                                  : std::nullopt;
            insert_account_audit(
                tx, project.value, actor_of(actor), "webhook_endpoint.updated",
                changes_json(
                    id,
                    {{"url", patch.url}, {"description", description}, {"status", patch.status}},
                    patch.events));
        }
        return after;
    }));
}

bool PgDashboardWebhooks::remove(const ports::ProjectId& project, ports::Mode mode,
                                 const std::string& id, const ports::DashboardActor& actor) {
    return pool_.with_transaction([&](pqxx::work& tx) {
        const bool removed = delete_webhook_endpoint(tx, project.value, mode_text(mode), id);
        if (removed) {
            insert_account_audit(tx, project.value, actor_of(actor), "webhook_endpoint.deleted",
                                 changes_json(id, {}));
        }
        return removed;
    });
}

std::optional<ports::WebhookEndpoint> PgDashboardWebhooks::rotate_secret(
    const ports::ProjectId& project, ports::Mode mode, const std::string& id,
    const std::string& secret, std::chrono::seconds overlap, const ports::DashboardActor& actor) {
    return endpoint_of(pool_.with_transaction([&](pqxx::work& tx) {
        auto after = rotate_webhook_secret(tx, project.value, mode_text(mode), id, secret, overlap);
        if (after) {
            insert_account_audit(
                tx, project.value, actor_of(actor), "webhook_endpoint.secret_rotated",
                changes_json(id, {{"previousSecretExpiresAt", after->previous_secret_expires_at}}));
        }
        return after;
    }));
}

bool PgDashboardWebhooks::send_test(const ports::ProjectId& project, ports::Mode mode,
                                    const std::string& endpoint_id,
                                    const domain::webhooks::WebhookEvent& event,
                                    const ports::DashboardActor& actor) {
    return pool_.with_transaction([&](pqxx::work& tx) {
        const bool sent = send_test_in(tx, project, mode, endpoint_id, event);
        if (sent) {
            insert_account_audit(tx, project.value, actor_of(actor), "webhook_endpoint.test_sent",
                                 changes_json(endpoint_id, {{"eventId", event.id}}));
        }
        return sent;
    });
}

bool PgDashboardWebhooks::redeliver(const ports::ProjectId& project, ports::Mode mode,
                                    const std::string& event_id, const std::string& endpoint_id,
                                    const ports::DashboardActor& actor) {
    return pool_.with_transaction([&](pqxx::work& tx) {
        const bool queued =
            redeliver_webhook_event(tx, project.value, mode_text(mode), event_id, endpoint_id);
        if (queued) {
            insert_account_audit(tx, project.value, actor_of(actor), "webhook_delivery.redelivered",
                                 changes_json(endpoint_id, {{"eventId", event_id}}));
        }
        return queued;
    });
}

}  // namespace duepay::infra::postgres
