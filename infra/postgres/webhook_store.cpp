// SQL of webhook endpoints and events (webhook_store.hpp, the API's half): endpoints, the events
// stored and queued per endpoint, redelivery and the attempt log as the API pages it. The
// webhooks role's half (journal, claims, attempts, the failure clock) is webhook_queue_store.cpp.
#include "infra/postgres/webhook_store.hpp"

#include <sstream>

#include "domain/events/event.hpp"
#include "infra/postgres/detail/prepared.hpp"
#include "infra/postgres/detail/sql_text.hpp"

namespace duepay::infra::postgres {
namespace {

using detail::array_literal;

// RFC 3339 UTC with milliseconds, as every timestamp of the API.
#define DUEPAY_TS(col) "to_char(" col " at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
// The body's own createdAt ($7), what GET /v1/events orders and filters by (migration 0165).
#define DUEPAY_BODY_CREATED_AT "coalesce(($7::text::jsonb ->> 'createdAt')::timestamptz, now())"

constexpr const char* kEndpointColumns =
    "id, project_id, mode, url, array_to_string(events, ','), description, status, "
    "disabled_reason, "
    DUEPAY_TS("failing_since") ", "
    "case when previous_expires_at > now() then " DUEPAY_TS("previous_expires_at") " end, "
    "secret, "
    DUEPAY_TS("created_at") ", " DUEPAY_TS("updated_at");

std::optional<std::string> opt(const pqxx::field& f) {
    if (f.is_null()) return std::nullopt;
    return f.as<std::string>();
}

std::vector<std::string> split(const std::string& csv) {
    std::vector<std::string> out;
    std::stringstream in(csv);
    for (std::string item; std::getline(in, item, ',');) {
        if (!item.empty()) out.push_back(item);
    }
    return out;
}

WebhookEndpoint endpoint_from(const pqxx::row& r) {
    WebhookEndpoint e;
    e.id = r[0].as<std::string>();
    e.project_id = r[1].as<std::string>();
    e.mode = r[2].as<std::string>();
    e.url = r[3].as<std::string>();
    e.events = split(r[4].as<std::string>());
    e.description = opt(r[5]);
    e.status = r[6].as<std::string>();
    e.disabled_reason = opt(r[7]);
    e.failing_since = opt(r[8]);
    e.previous_secret_expires_at = opt(r[9]);
    e.secret = r[10].as<std::string>();
    e.created_at = r[11].as<std::string>();
    e.updated_at = r[12].as<std::string>();
    return e;
}

std::optional<WebhookEndpoint> first_endpoint(const pqxx::result& rows) {
    if (rows.empty()) return std::nullopt;
    return endpoint_from(rows[0]);
}

// An endpoint's health counts as a subquery (columns attempts, delivered) over `id` (an SQL
// expression): its attempts of the last kHealthWindowHours, at most kHealthAttemptCap of the
// newest, and how many of them got a 2xx. The window and the cap are written into the statement,
// not passed as parameters: with a parameter in its LIMIT (or its interval), the generic plan's
// estimate was far above a custom plan's, so Postgres planned the statement anew on every call,
// which cost more than running it (ADR 0315).
std::string health_counts_sql(const std::string& id) {
    return "(select count(*) as attempts, "
           "count(*) filter (where a.response_status between 200 and 299) as delivered "
           "from (select w.response_status from webhook_attempts w where w.endpoint_id = " +
           id + " and w.attempted_at > now() - interval '" +
           std::to_string(domain::webhooks::kHealthWindowHours) +
           " hours' order by w.attempted_at desc limit " +
           std::to_string(domain::webhooks::kHealthAttemptCap) + ") a)";
}

// A timestamp column as unix microseconds, formatted here as the API's RFC 3339 with
// milliseconds (truncated, as to_char's MS was): to_char costs Postgres more than the rest of a
// log page's row (ADR 0188 measured the same on the charges list).
#define DUEPAY_MICROS(col) "(extract(epoch from " col ") * 1000000)::bigint"
std::string rfc3339_of(const pqxx::field& micros) {
    return domain::events::format_rfc3339_millis_utc(micros.as<std::int64_t>() / 1000);
}

}  // namespace

WebhookEndpoint insert_webhook_endpoint(pqxx::work& tx, const WebhookEndpoint& e) {
    auto rows = tx.exec_params(
        std::string("insert into webhook_endpoints (id, project_id, mode, url, events, "
                    "description, secret) values ($1, $2, $3, $4, $5::text[], $6, $7) "
                    "returning ") +
            kEndpointColumns,
        e.id, e.project_id, e.mode, e.url, array_literal(e.events), e.description, e.secret);
    return endpoint_from(rows[0]);
}

std::vector<WebhookEndpoint> list_webhook_endpoints(
    pqxx::transaction_base& tx, const std::string& project_id, const std::string& mode,
    std::size_t limit, const std::optional<std::string>& starting_after) {
    auto rows = tx.exec_params(
        std::string("select ") + kEndpointColumns +
            " from webhook_endpoints where project_id = $1 and mode = $2 and ($3::text is null or "
            "(created_at, id) < (select created_at, id from webhook_endpoints where id = $3)) "
            "order by created_at desc, id desc limit $4",
        project_id, mode, starting_after, static_cast<long long>(limit));
    std::vector<WebhookEndpoint> out;
    for (const auto& r : rows) out.push_back(endpoint_from(r));
    return out;
}

std::optional<WebhookEndpoint> find_webhook_endpoint(pqxx::transaction_base& tx,
                                                     const std::string& project_id,
                                                     const std::string& mode,
                                                     const std::string& id) {
    // Prepared (detail::exec_prepared_sql), as the two reads below: an endpoint's delivery log
    // runs all three per request, and planning them cost more than running them.
    static const std::string sql = std::string("select ") + kEndpointColumns +
                                   " from webhook_endpoints where id = $1 and project_id = $2 and "
                                   "mode = $3";
    return first_endpoint(
        detail::exec_prepared_sql(tx, "webhook_endpoint_find", sql, id, project_id, mode));
}

std::optional<WebhookEndpoint> update_webhook_endpoint(pqxx::work& tx,
                                                       const std::string& project_id,
                                                       const std::string& mode,
                                                       const std::string& id,
                                                       const EndpointPatch& patch) {
    std::optional<std::string> events;
    if (patch.events) events = array_literal(*patch.events);
    std::optional<std::string> description;
    if (patch.description) description = *patch.description;
    // Enabling again clears the failure clock; disabling by hand says so.
    return first_endpoint(tx.exec_params(
        std::string(
            "update webhook_endpoints set url = coalesce($4, url), events = coalesce($5::text[], "
            "events), "
            "description = case when $6 then $7 else description end, "
            "status = coalesce($8, status), "
            "disabled_reason = case when $8 = 'enabled' then null when $8 = 'disabled' then "
            "'manual' "
            "else disabled_reason end, "
            "failing_since = case when $8 = 'enabled' then null else failing_since end, "
            "updated_at = now() where id = $1 and project_id = $2 and mode = $3 returning ") +
            kEndpointColumns,
        id, project_id, mode, patch.url, events, patch.description.has_value(), description,
        patch.status));
}

bool delete_webhook_endpoint(pqxx::work& tx, const std::string& project_id, const std::string& mode,
                             const std::string& id) {
    auto rows = tx.exec_params(
        "delete from webhook_endpoints where id = $1 and project_id = $2 and mode = $3 "
        "returning id",
        id, project_id, mode);
    return !rows.empty();
}

std::optional<WebhookEndpoint> rotate_webhook_secret(pqxx::work& tx, const std::string& project_id,
                                                     const std::string& mode, const std::string& id,
                                                     const std::string& new_secret,
                                                     std::chrono::seconds previous_ttl) {
    return first_endpoint(tx.exec_params(
        std::string("update webhook_endpoints set previous_secret = secret, secret = $4, "
                    "previous_expires_at = now() + $5::interval, updated_at = now() "
                    "where id = $1 and project_id = $2 and mode = $3 returning ") +
            kEndpointColumns,
        id, project_id, mode, new_secret, std::to_string(previous_ttl.count()) + " seconds"));
}

std::size_t enqueue_webhook_event(pqxx::work& tx, const WebhookEventRow& ev) {
    auto rows = tx.exec_params(
        "with ins as (insert into webhook_events "
        "  (id, type, project_id, mode, invoice_id, charge_event_id, body, occurred_at) "
        "  values ($1, $2, $3, $4, $5, $6, $7, " DUEPAY_BODY_CREATED_AT
        ") "
        "  on conflict (id) do nothing returning id) "
        "insert into webhook_deliveries (endpoint_id, event_id) "
        "select e.id, ins.id from webhook_endpoints e, ins "
        "where e.project_id = $3 and e.mode = $4 and e.status = 'enabled' and $2 = any(e.events) "
        "on conflict do nothing returning endpoint_id",
        ev.id, ev.type, ev.project_id, ev.mode, ev.invoice_id, ev.charge_event_id, ev.body);
    return rows.size();
}

void enqueue_webhook_event_for(pqxx::work& tx, const WebhookEventRow& ev,
                               const std::string& endpoint_id) {
    tx.exec_params(
        "insert into webhook_events "
        "  (id, type, project_id, mode, invoice_id, charge_event_id, body, occurred_at) "
        "values ($1, $2, $3, $4, $5, $6, $7, " DUEPAY_BODY_CREATED_AT
        ") "
        "on conflict (id) do nothing",
        ev.id, ev.type, ev.project_id, ev.mode, ev.invoice_id, ev.charge_event_id, ev.body);
    tx.exec_params(
        "insert into webhook_deliveries (endpoint_id, event_id) values ($1, $2) "
        "on conflict do nothing",
        endpoint_id, ev.id);
}

bool redeliver_webhook_event(pqxx::work& tx, const std::string& project_id, const std::string& mode,
                             const std::string& event_id, const std::string& endpoint_id) {
    auto rows = tx.exec_params(
        "insert into webhook_deliveries (endpoint_id, event_id) "
        "select e.id, ev.id from webhook_endpoints e, webhook_events ev "
        "where e.id = $1 and e.project_id = $3 and e.mode = $4 "
        "  and ev.id = $2 and ev.project_id = $3 and ev.mode = $4 "
        "on conflict (endpoint_id, event_id) do update set state = 'pending', attempts = 0, "
        "  next_attempt_at = now(), leased_until = null, lease_token = null, "
        "  first_attempt_at = null, updated_at = now() "
        "returning event_id",
        endpoint_id, event_id, project_id, mode);
    return !rows.empty();
}

std::vector<WebhookAttempt> list_webhook_attempts(pqxx::transaction_base& tx,
                                                  const std::string& endpoint_id, std::size_t limit,
                                                  std::optional<std::int64_t> before_id) {
    // One prepared statement per page size and per first or later page (the dashboard uses one
    // size, the API at most 100): with the size as a parameter of LIMIT, or the bound as
    // `$2 is null or id < $2`, Postgres planned each call anew (ADR 0315).
    const std::string size = std::to_string(limit);
    const std::string sql =
        "select id, event_id, event_type, attempt, " DUEPAY_MICROS("attempted_at") ", "
        "  response_status, latency_ms, error, " DUEPAY_MICROS("next_retry_at") ", "
        "  response_excerpt from webhook_attempts where endpoint_id = $1" +
        std::string(before_id ? " and id < $2" : "") + " order by id desc limit " + size;
    const auto rows =
        before_id ? detail::exec_prepared_sql(tx, "webhook_attempts_before_" + size, sql,
                                              endpoint_id, *before_id)
                  : detail::exec_prepared_sql(tx, "webhook_attempts_" + size, sql, endpoint_id);
    std::vector<WebhookAttempt> out;
    for (const auto& r : rows) {
        WebhookAttempt a;
        a.id = r[0].as<std::int64_t>();
        a.event_id = r[1].as<std::string>();
        a.event_type = r[2].as<std::string>();
        a.attempt = r[3].as<int>();
        a.attempted_at = rfc3339_of(r[4]);
        if (!r[5].is_null()) a.response_status = r[5].as<int>();
        a.latency_ms = r[6].as<int>();
        a.error = opt(r[7]);
        if (!r[8].is_null()) a.next_retry_at = rfc3339_of(r[8]);
        a.response_excerpt = opt(r[9]);
        out.push_back(std::move(a));
    }
    return out;
}

std::vector<std::pair<std::string, domain::webhooks::AttemptCounts>> count_webhook_attempts(
    pqxx::transaction_base& tx, const std::vector<std::string>& endpoint_ids) {
    std::vector<std::pair<std::string, domain::webhooks::AttemptCounts>> out;
    if (endpoint_ids.empty()) return out;
    static const std::string sql =
        "select x.id, h.attempts, h.delivered from unnest($1::text[]) as x(id) cross join "
        "lateral " +
        health_counts_sql("x.id") + " h where h.attempts > 0";
    auto rows =
        detail::exec_prepared_sql(tx, "webhook_attempt_counts_h", sql, array_literal(endpoint_ids));
    for (const auto& r : rows) {
        out.emplace_back(
            r[0].as<std::string>(),
            domain::webhooks::AttemptCounts{r[1].as<std::int64_t>(), r[2].as<std::int64_t>()});
    }
    return out;
}

std::optional<std::pair<WebhookEndpoint, domain::webhooks::AttemptCounts>>
find_webhook_endpoint_with_health(pqxx::transaction_base& tx, const std::string& project_id,
                                  const std::string& mode, const std::string& id) {
    // The endpoint's columns (kEndpointColumns, names that only the endpoint has) and then its
    // two counts: the endpoint page's first read, where a find and a count were two.
    static const std::string sql = std::string("select ") + kEndpointColumns +
                                   ", h.attempts, h.delivered from webhook_endpoints cross join "
                                   "lateral " +
                                   health_counts_sql("webhook_endpoints.id") +
                                   " h where id = $1 and project_id = $2 and mode = $3";
    auto rows =
        detail::exec_prepared_sql(tx, "webhook_endpoint_find_health", sql, id, project_id, mode);
    if (rows.empty()) return std::nullopt;
    return std::pair(endpoint_from(rows[0]),
                     domain::webhooks::AttemptCounts{rows[0][13].as<std::int64_t>(),
                                                     rows[0][14].as<std::int64_t>()});
}

std::vector<ports::ChargeDelivery> list_charge_webhook_deliveries(pqxx::transaction_base& tx,
                                                                  const std::string& project_id,
                                                                  const std::string& mode,
                                                                  const std::string& invoice_id,
                                                                  std::size_t limit) {
    auto rows = tx.exec_params(
        "select d.endpoint_id, e.url, d.event_id, ev.type, d.state, d.attempts, d.last_status, "
        "  d.last_error, " DUEPAY_TS("d.updated_at") " "
        "from webhook_events ev join webhook_deliveries d on d.event_id = ev.id "
        "join webhook_endpoints e on e.id = d.endpoint_id "
        "where ev.invoice_id = $1 and ev.project_id = $2 and ev.mode = $3 "
        "order by ev.occurred_at desc, ev.id, d.endpoint_id limit $4",
        invoice_id, project_id, mode, static_cast<long long>(limit));
    std::vector<ports::ChargeDelivery> out;
    for (const auto& r : rows) {
        ports::ChargeDelivery d;
        d.endpoint_id = r[0].as<std::string>();
        d.endpoint_url = r[1].as<std::string>();
        d.event_id = r[2].as<std::string>();
        d.event_type = r[3].as<std::string>();
        d.state = r[4].as<std::string>();
        d.attempts = r[5].as<int>();
        if (!r[6].is_null()) d.last_status = r[6].as<int>();
        d.last_error = opt(r[7]);
        d.updated_at = r[8].as<std::string>();
        out.push_back(std::move(d));
    }
    return out;
}

}  // namespace duepay::infra::postgres
