// SQL of webhooks (schemas/migrations/0100_webhooks.sql, docs/webhooks.md): endpoints (account
// data, scoped by project and key mode), the webhooks role's journal, emitted events, the delivery
// queue and the attempt log. Functions take the caller's transaction, so the role enqueues in the
// same transaction as its consumer offsets.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <pqxx/pqxx>
#include <set>
#include <string>
#include <vector>

#include "domain/ports/api.hpp"
#include "domain/ports/dashboard_webhooks.hpp"
#include "domain/webhooks/delivery_log.hpp"

namespace duepay::infra::postgres {

struct WebhookEndpoint {
    std::string id;
    std::string project_id;
    std::string mode;
    std::string url;
    std::vector<std::string> events;
    std::optional<std::string> description;
    std::string status;                          // enabled | disabled
    std::optional<std::string> disabled_reason;  // manual | failing
    std::optional<std::string> failing_since;    // RFC 3339
    std::optional<std::string> previous_secret_expires_at;
    std::string secret;  // shown only at creation and rotation
    std::string created_at;
    std::string updated_at;
};

struct EndpointPatch {
    std::optional<std::string> url;
    std::optional<std::vector<std::string>> events;
    std::optional<std::optional<std::string>> description;  // set (value or null) when present
    std::optional<std::string> status;
};

WebhookEndpoint insert_webhook_endpoint(pqxx::work& tx, const WebhookEndpoint& endpoint);
// Newest first; `starting_after` is the id of the last endpoint of the previous page.
std::vector<WebhookEndpoint> list_webhook_endpoints(
    pqxx::transaction_base& tx, const std::string& project_id, const std::string& mode,
    std::size_t limit, const std::optional<std::string>& starting_after);
std::optional<WebhookEndpoint> find_webhook_endpoint(pqxx::transaction_base& tx,
                                                     const std::string& project_id,
                                                     const std::string& mode,
                                                     const std::string& id);
std::optional<WebhookEndpoint> update_webhook_endpoint(pqxx::work& tx,
                                                       const std::string& project_id,
                                                       const std::string& mode,
                                                       const std::string& id,
                                                       const EndpointPatch& patch);
bool delete_webhook_endpoint(pqxx::work& tx, const std::string& project_id, const std::string& mode,
                             const std::string& id);
// The endpoint with its new secret; the old one keeps signing until now + previous_ttl.
std::optional<WebhookEndpoint> rotate_webhook_secret(pqxx::work& tx, const std::string& project_id,
                                                     const std::string& mode, const std::string& id,
                                                     const std::string& new_secret,
                                                     std::chrono::seconds previous_ttl);

struct WebhookEventRow {
    std::string id;
    std::string type;
    std::string project_id;
    std::string mode;
    std::optional<std::string> invoice_id;
    std::optional<std::string> charge_event_id;
    std::string body;
};

// Stores the event (once per id) and queues one delivery per enabled endpoint of the project and
// mode subscribed to its type; returns the number of deliveries queued now.
std::size_t enqueue_webhook_event(pqxx::work& tx, const WebhookEventRow& event);
// Stores the event and queues it for one endpoint only (webhook.test).
void enqueue_webhook_event_for(pqxx::work& tx, const WebhookEventRow& event,
                               const std::string& endpoint_id);
// Queues the event again for the endpoint (a new pending delivery, attempts from 0). False when
// the event or the endpoint is not the project's in that mode.
bool redeliver_webhook_event(pqxx::work& tx, const std::string& project_id, const std::string& mode,
                             const std::string& event_id, const std::string& endpoint_id);

// An attempt row is the WebhookEndpoints port's own type (the adapter returns it as it is).
using WebhookAttempt = ports::WebhookAttempt;
// Newest first; `before_id` pages back.
std::vector<WebhookAttempt> list_webhook_attempts(pqxx::transaction_base& tx,
                                                  const std::string& endpoint_id, std::size_t limit,
                                                  std::optional<std::int64_t> before_id);

// Per endpoint of `endpoint_ids`: its attempts of the last domain::webhooks::kHealthWindowHours,
// at most kHealthAttemptCap of the newest (webhook_attempts_endpoint_time_idx, migration 0235),
// and how many of them got a 2xx.
std::vector<std::pair<std::string, domain::webhooks::AttemptCounts>> count_webhook_attempts(
    pqxx::transaction_base& tx, const std::vector<std::string>& endpoint_ids);
// The endpoint of the project and mode with its counts as count_webhook_attempts gives them (zero
// when it has no attempt in the window), in one statement; nullopt when there is no such endpoint.
std::optional<std::pair<WebhookEndpoint, domain::webhooks::AttemptCounts>>
find_webhook_endpoint_with_health(pqxx::transaction_base& tx, const std::string& project_id,
                                  const std::string& mode, const std::string& id);
// The deliveries of a charge's events of the project and mode, newest event first, at most
// `limit` (webhook_events_invoice_idx, migration 0235).
std::vector<ports::ChargeDelivery> list_charge_webhook_deliveries(pqxx::transaction_base& tx,
                                                                  const std::string& project_id,
                                                                  const std::string& mode,
                                                                  const std::string& invoice_id,
                                                                  std::size_t limit);

// --- the webhooks role ---

struct WebhookJournalEntry {
    std::string event_id;
    std::string invoice_id;
    std::int32_t partition = 0;
    std::int64_t offset = 0;
    std::string payload;
};
std::set<std::string> insert_webhook_journal(pqxx::work& tx,
                                             const std::vector<WebhookJournalEntry>& entries);
// (invoice id, payload) in log order, per invoice.
std::vector<std::pair<std::string, std::string>> load_webhook_journal(
    pqxx::work& tx, const std::vector<std::string>& invoice_ids);

struct ClaimedDelivery {
    std::string endpoint_id;
    std::string event_id;
    std::string event_type;
    std::string url;
    std::string body;
    std::vector<std::string> secrets;  // active ones, current first
    int attempts = 0;                  // before this one
    std::int64_t since_first_attempt_ms = 0;
    std::int64_t lease_token = 0;
    bool test_mode = false;  // the endpoint's mode: the dev relaxations apply to test mode only
};

// Claims due deliveries (FOR UPDATE SKIP LOCKED: several dispatchers share the queue), at most
// `per_endpoint` in flight per endpoint across dispatchers, leased for `lease` (a dispatcher that
// dies mid-request leaves them to another after the lease).
// `lease_token` (random, per claim) is what record_webhook_attempt must present.
std::vector<ClaimedDelivery> claim_webhook_deliveries(pqxx::work& tx, std::size_t limit,
                                                      std::size_t per_endpoint,
                                                      std::chrono::milliseconds lease,
                                                      std::int64_t lease_token);

struct AttemptOutcome {
    std::string endpoint_id;
    std::string event_id;
    std::string event_type;
    int attempt = 0;  // 1-based
    std::optional<int> response_status;
    int latency_ms = 0;
    std::optional<std::string> error;
    // The start of the answer (domain/webhooks/delivery_log: safe text, bounded); nullopt when
    // no answer arrived.
    std::optional<std::string> response_excerpt;
    bool delivered = false;
    std::optional<std::chrono::milliseconds> retry_in;  // nullopt and !delivered: failed for good
    std::int64_t lease_token = 0;                       // from the claim
};
// Logs each attempt (unless the endpoint was deleted meanwhile); updates a delivery only while
// the claim's lease token is still its own (a redelivery or another dispatcher's re-claim since
// then is not overwritten); sets or clears the endpoints' failure clock. One batch is four
// statements, whatever its size; outcomes of one endpoint count in their order in the vector.
void record_webhook_attempts(pqxx::work& tx, const std::vector<AttemptOutcome>& outcomes);

// Disables endpoints failing for longer than `after` with no success; returns their ids.
std::vector<std::string> disable_failing_webhook_endpoints(pqxx::work& tx,
                                                           std::chrono::seconds after);
// Deletes attempts older than `keep`; returns the number deleted.
std::size_t purge_webhook_attempts(pqxx::work& tx, std::chrono::seconds keep);

// Pending deliveries: due now (next_attempt_at reached) and waiting for a later retry.
struct WebhookQueueDepth {
    std::int64_t due = 0;
    std::int64_t later = 0;
};
WebhookQueueDepth webhook_queue_depth(pqxx::transaction_base& tx);

}  // namespace duepay::infra::postgres
