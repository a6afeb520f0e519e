// SQL of the webhooks role (webhook_store.hpp, "the webhooks role"): its journal of charge events,
// the delivery claims, the attempts recorded in one batch, failing endpoints disabled, old attempts
// purged, the queue depth. Endpoints and events as the API sees them are webhook_store.cpp.
#include <chrono>
#include <string>
#include <vector>

#include "domain/events/json_writer.hpp"
#include "infra/postgres/charge_stats_store.hpp"
#include "infra/postgres/detail/prepared.hpp"
#include "infra/postgres/detail/sql_text.hpp"
#include "infra/postgres/webhook_store.hpp"

namespace duepay::infra::postgres {
namespace {

using detail::array_literal;

std::string ms_interval(std::chrono::milliseconds ms) {
    return std::to_string(ms.count()) + " milliseconds";
}

}  // namespace

std::set<std::string> insert_webhook_journal(pqxx::work& tx,
                                             const std::vector<WebhookJournalEntry>& entries) {
    std::set<std::string> inserted;
    if (entries.empty()) return inserted;
    // One statement a batch, one array a column (as the projector's journal).
    detail::TextArray ids, invoices, partitions, offsets, payloads;
    for (const auto& e : entries) {
        ids.add(e.event_id);
        invoices.add(e.invoice_id);
        partitions.add(std::to_string(e.partition));
        offsets.add(std::to_string(e.offset));
        payloads.add(e.payload);
    }
    for (const auto& r : detail::exec_prepared_sql(
             tx, "insert_webhook_journal",
             "insert into webhook_charge_events (event_id, invoice_id, partition, \"offset\", "
             "payload) "
             "select * from unnest($1::text[], $2::text[], $3::int[], $4::bigint[], $5::text[]) "
             "on conflict (event_id) do nothing returning event_id",
             ids.text(), invoices.text(), partitions.text(), offsets.text(), payloads.text())) {
        inserted.insert(r[0].as<std::string>());
    }
    return inserted;
}

std::vector<std::pair<std::string, std::string>> load_webhook_journal(
    pqxx::work& tx, const std::vector<std::string>& invoice_ids) {
    std::vector<std::pair<std::string, std::string>> out;
    if (invoice_ids.empty()) return out;
    auto rows = detail::exec_prepared_sql(tx, "load_webhook_journal",
                                          "select invoice_id, payload from webhook_charge_events "
                                          "where invoice_id = any($1::text[]) "
                                          "order by invoice_id, partition, \"offset\"",
                                          array_literal(invoice_ids));  // 0x-hex ids: no quoting
    out.reserve(rows.size());
    for (const auto& r : rows) out.emplace_back(r[0].as<std::string>(), r[1].as<std::string>());
    return out;
}

std::vector<ClaimedDelivery> claim_webhook_deliveries(pqxx::work& tx, std::size_t limit,
                                                      std::size_t per_endpoint,
                                                      std::chrono::milliseconds lease,
                                                      std::int64_t lease_token) {
    // The endpoint rows are locked (SKIP LOCKED), so one dispatcher at a time claims for an
    // endpoint and the in-flight count per endpoint holds across dispatchers. The update checks
    // again that the delivery is due: the statement's snapshot may predate the commit of another
    // dispatcher's claim of the same rows (its endpoint lock was released in between), and the
    // re-check on the newest row version (READ COMMITTED) then skips what that claim leased,
    // instead of sending it a second time.
    // Cost: each endpoint's due rows are read by its index (webhook_deliveries_due_idx), at most
    // `room` of them, and its in-flight count by webhook_deliveries_leased_idx (migration 0101):
    // a claim no longer sorts every due row of a busy endpoint.
    auto rows = tx.exec_params(
        "with eps as ("
        "  select e.id, greatest(0, $2 - (select count(*) from webhook_deliveries x "
        "    where x.endpoint_id = e.id and x.state = 'pending' and x.leased_until > now())) "
        "    as room "
        "  from webhook_endpoints e "
        "  where e.status = 'enabled' and exists (select 1 from webhook_deliveries d "
        "    where d.endpoint_id = e.id and d.state = 'pending' and d.next_attempt_at <= now()) "
        "  for update of e skip locked), "
        "picked as ("
        "  select c.endpoint_id, c.event_id from eps cross join lateral ("
        "    select d.endpoint_id, d.event_id, d.next_attempt_at from webhook_deliveries d "
        "    where d.endpoint_id = eps.id and d.state = 'pending' and d.next_attempt_at <= now() "
        "    order by d.next_attempt_at limit eps.room) c "
        "  order by c.next_attempt_at limit $1) "
        "update webhook_deliveries d set leased_until = now() + $3::interval, lease_token = $4, "
        "  next_attempt_at = now() + $3::interval, updated_at = now(), "
        "  first_attempt_at = coalesce(d.first_attempt_at, now()) "
        "from picked p, webhook_events ev, webhook_endpoints e "
        "where d.endpoint_id = p.endpoint_id and d.event_id = p.event_id and ev.id = d.event_id "
        "  and e.id = d.endpoint_id and d.state = 'pending' and d.next_attempt_at <= now() "
        "returning d.endpoint_id, d.event_id, ev.type, e.url, ev.body, e.secret, "
        "  case when e.previous_expires_at > now() then e.previous_secret end, d.attempts, "
        "  (extract(epoch from (now() - d.first_attempt_at)) * 1000)::bigint, e.mode",
        static_cast<long long>(limit), static_cast<long long>(per_endpoint), ms_interval(lease),
        lease_token);
    std::vector<ClaimedDelivery> out;
    out.reserve(rows.size());
    for (const auto& r : rows) {
        ClaimedDelivery c;
        c.endpoint_id = r[0].as<std::string>();
        c.event_id = r[1].as<std::string>();
        c.event_type = r[2].as<std::string>();
        c.url = r[3].as<std::string>();
        c.body = r[4].as<std::string>();
        c.secrets.push_back(r[5].as<std::string>());
        if (!r[6].is_null()) c.secrets.push_back(r[6].as<std::string>());
        c.attempts = r[7].as<int>();
        c.since_first_attempt_ms = r[8].as<std::int64_t>();
        c.lease_token = lease_token;
        c.test_mode = r[9].as<std::string>() == "test";
        out.push_back(std::move(c));
    }
    return out;
}

namespace {

// The outcomes as one JSON array, read by Postgres with jsonb_to_recordset: a batch costs four
// statements whatever its size (it was four per outcome).
std::string outcomes_json(const std::vector<AttemptOutcome>& outcomes) {
    rapidjson::StringBuffer buf;
    domain::json::Writer w(buf);
    w.StartArray();
    int seq = 0;
    for (const auto& o : outcomes) {
        w.StartObject();
        w.Key("seq");
        w.Int(seq++);
        domain::json::str(w, "endpoint_id", o.endpoint_id);
        domain::json::str(w, "event_id", o.event_id);
        domain::json::str(w, "event_type", o.event_type);
        w.Key("attempt");
        w.Int(o.attempt);
        w.Key("response_status");
        if (o.response_status) {
            w.Int(*o.response_status);
        } else {
            w.Null();
        }
        w.Key("latency_ms");
        w.Int(o.latency_ms);
        domain::json::opt_str(w, "error", o.error);
        domain::json::opt_str(w, "response_excerpt", o.response_excerpt);
        w.Key("retry_ms");
        if (o.retry_in) {
            w.Int64(o.retry_in->count());
        } else {
            w.Null();
        }
        w.Key("delivered");
        w.Bool(o.delivered);
        w.Key("lease_token");
        w.Int64(o.lease_token);
        w.EndObject();
    }
    w.EndArray();
    return {buf.GetString(), buf.GetSize()};
}

constexpr const char* kOutcomes =
    "jsonb_to_recordset($1::jsonb) as x(seq int, endpoint_id text, event_id text, "
    "event_type text, attempt int, response_status int, latency_ms int, error text, "
    "response_excerpt text, retry_ms bigint, delivered boolean, lease_token bigint)";

}  // namespace

void record_webhook_attempts(pqxx::work& tx, const std::vector<AttemptOutcome>& outcomes) {
    if (outcomes.empty()) return;
    const std::string batch = outcomes_json(outcomes);
    // Lock order: the endpoint rows first, in id order, then their deliveries, as the claim and an
    // endpoint's delete (which cascades to its deliveries) take them; the other order deadlocks
    // against a delete.
    tx.exec_params(std::string("select 1 from webhook_endpoints where id in (select endpoint_id "
                               "from ") +
                       kOutcomes + ") order by id for no key update",
                   batch);
    // An endpoint deleted while its request was in flight has no log any more: skip it.
    tx.exec_params(std::string("insert into webhook_attempts (endpoint_id, event_id, event_type, "
                               "  attempt, response_status, latency_ms, error, response_excerpt, "
                               "  next_retry_at) "
                               "select x.endpoint_id, x.event_id, x.event_type, x.attempt, "
                               "  x.response_status, x.latency_ms, x.error, x.response_excerpt, "
                               "  now() + x.retry_ms * interval '1 millisecond' from ") +
                       kOutcomes +
                       " where exists (select 1 from webhook_endpoints e "
                       "where e.id = x.endpoint_id) order by x.seq",
                   batch);
    // The overview's success rate counts them per project and mode (ADR 0245).
    count_webhook_attempts(tx, batch);
    tx.exec_params(
        std::string("update webhook_deliveries d set attempts = x.attempt, "
                    "  state = case when x.delivered then 'delivered' "
                    "    when x.retry_ms is not null then 'pending' else 'failed' end, "
                    "  leased_until = null, lease_token = null, "
                    "  next_attempt_at = coalesce(now() + x.retry_ms * interval '1 millisecond', "
                    "    d.next_attempt_at), "
                    "  last_status = x.response_status, last_error = x.error, updated_at = now() "
                    "from ") +
            kOutcomes +
            " where d.endpoint_id = x.endpoint_id and d.event_id = x.event_id "
            "and d.lease_token = x.lease_token",
        batch);
    // The failure clock: set by the first failure after a success, cleared by a success. Within
    // one batch (one transaction, one now()) an endpoint's last outcome decides.
    tx.exec_params(std::string("update webhook_endpoints e set failing_since = case "
                               "  when a.last_delivered then null "
                               "  when a.any_delivered then now() "
                               "  else coalesce(e.failing_since, now()) end "
                               "from (select endpoint_id, bool_or(delivered) as any_delivered, "
                               "  (array_agg(delivered order by seq desc))[1] as last_delivered "
                               "  from ") +
                       kOutcomes +
                       " group by endpoint_id) a "
                       "where e.id = a.endpoint_id and case when a.last_delivered "
                       "then e.failing_since is not null "
                       "else e.failing_since is null or a.any_delivered end",
                   batch);
}

std::vector<std::string> disable_failing_webhook_endpoints(pqxx::work& tx,
                                                           std::chrono::seconds after) {
    auto rows = tx.exec_params(
        "update webhook_endpoints set status = 'disabled', disabled_reason = 'failing', "
        "  updated_at = now() "
        "where id in (select id from webhook_endpoints where status = 'enabled' "
        "  and failing_since < now() - $1::interval order by id for no key update) "
        "returning id",
        std::to_string(after.count()) + " seconds");
    std::vector<std::string> out;
    for (const auto& r : rows) out.push_back(r[0].as<std::string>());
    return out;
}

WebhookQueueDepth webhook_queue_depth(pqxx::transaction_base& tx) {
    const auto row = tx.exec1(
        "select count(*) filter (where next_attempt_at <= now()), "
        "count(*) filter (where next_attempt_at > now()) "
        "from webhook_deliveries where state = 'pending'");
    return {row[0].as<std::int64_t>(), row[1].as<std::int64_t>()};
}

std::size_t purge_webhook_attempts(pqxx::work& tx, std::chrono::seconds keep) {
    auto rows =
        tx.exec_params("delete from webhook_attempts where attempted_at < now() - $1::interval",
                       std::to_string(keep.count()) + " seconds");
    return static_cast<std::size_t>(rows.affected_rows());
}

}  // namespace duepay::infra::postgres
