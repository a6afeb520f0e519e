// What the API's routes need from the world, as small interfaces (docs/style.md), and the
// vocabulary they speak: every type a port takes or returns is declared here, in domain terms,
// never an adapter's type (ADR 0182; the model is Envoy's ratelimit.h with its own LimitStatus,
// apart from ratelimit_impl.h). The ports live in domain/ports (ADR 0207); the Postgres adapters
// implement these classes directly in infra/postgres/ (api_ports.hpp, idempotency_store.hpp,
// rate_limiter.hpp); unit tests use the doubles of tests/doubles/. Header-only and free of I/O
// types. Every port throws StoreUnavailable (errors.hpp) when its store is unreachable; no driver
// exception leaves an adapter.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "domain/charge/charge_state.hpp"
#include "domain/events/event.hpp"
#include "domain/ports/errors.hpp"
#include "domain/result.hpp"
#include "domain/types.hpp"
#include "domain/webhooks/webhook_event.hpp"

namespace duepay::ports {

using domain::ProjectId;
using domain::charge::Status;
using domain::events::Mode;
using domain::events::PaymentMode;

// SHA-256 of a presented API key (only hashes are stored).
using KeyHash = std::array<std::uint8_t, 32>;

// ---- Keys ----

// The project and settings behind an active API key.
struct KeyOwner {
    std::string key_id;
    ProjectId project_id;
    Mode mode = Mode::test;  // the key's mode scopes every charge it creates or reads
    std::string plan;
    int payment_window_seconds = 3600;
    std::optional<std::string> payout_address;  // verified payout wallet, EIP-55
    KeyHash key_hash{};
    // Branding shown on the full charge read and the checkout.
    std::string project_name;
    std::optional<std::string> logo_url;
    std::optional<std::string> accent_color;  // #RRGGBB
    // Set for a rolled key: milliseconds until it stops working (database clock at lookup time), so
    // a cache never keeps it past its expiry (api/http/auth, docs/adr/0170).
    std::optional<std::int64_t> expires_in_ms;
};

// The project's branding on the full read and the checkout (`duepay admin project`).
struct Branding {
    std::string project_name;
    std::optional<std::string> logo_url;
    std::optional<std::string> accent_color;  // #RRGGBB
};

class KeyDirectory {
  public:
    virtual ~KeyDirectory() = default;
    // The active key with this SHA-256 hash.
    virtual std::optional<KeyOwner> find(const KeyHash& key_hash) = 0;
};

// ---- The merchant's own account (AccountApi: docs/accounts.md, ADR 0170, 0171, 0198) ----

// A project's settings as GET /v1/project shows them; times are RFC 3339 UTC as stored.
struct ProjectView {
    ProjectId id;
    std::string name;
    std::string plan;
    int payment_window_seconds = 3600;
    std::optional<std::string> payout_address;  // verified payout wallet, EIP-55
    std::optional<std::string> payout_verified_at;
    std::optional<std::string> logo_url;
    std::optional<std::string> accent_color;  // #RRGGBB
    std::string created_at;
};

// PATCH /v1/project, checked by the route (domain/accounts/project_settings): unset fields stay;
// an empty logo_url or accent_color clears it.
struct ProjectUpdate {
    std::optional<std::string> name;
    std::optional<int> payment_window_seconds;
    std::optional<std::string> logo_url;
    std::optional<std::string> accent_color;
};

// A roll: the new key (its secret shown once, never stored) and the key it replaced.
struct KeyRoll {
    std::string key_id;
    std::string secret;
    ProjectId project_id;
    Mode mode = Mode::test;
    std::string prefix;
    std::string created_at;
    std::string previous_key_id;
    std::optional<std::string> previous_expires_at;  // when the rolled key stops working
};

// A payout wallet challenge (the EIP-191 message to sign) and the project's verified wallet when
// it was issued.
struct IssuedChallenge {
    std::string id;
    std::string address;  // EIP-55
    std::string nonce;
    std::string expires_at;
    std::string message;
    std::optional<std::string> payout_address;
};

// POST /v1/payout-wallet/verify, its signatures' form checked by the route.
struct WalletProofRequest {
    ProjectId project_id;
    std::string address;                           // EIP-55
    std::string signature;                         // 0x + 130 hex, by `address`
    std::optional<std::string> nonce;              // which challenge; default the newest
    std::optional<std::string> current_signature;  // by the verified wallet being replaced
};

// The account changes a key makes on its own project. Each change is one transaction with its
// account_audit row naming `key_id` (the same rules as `duepay admin`, infra/accounts).
class Accounts {
  public:
    virtual ~Accounts() = default;
    virtual std::optional<ProjectView> find_project(const ProjectId& project) = 0;
    // nullopt: the key is unknown, revoked, expired or already rolled (nothing changed).
    virtual std::optional<KeyRoll> roll_key(const std::string& key_id, int expires_in_seconds) = 0;
    // The project after, or nullopt if unknown; an audit row of what changed (none if nothing).
    virtual std::optional<ProjectView> update_project(const ProjectId& project,
                                                      const ProjectUpdate& update,
                                                      const std::string& key_id) = 0;
    virtual IssuedChallenge issue_wallet_challenge(const ProjectId& project,
                                                   const std::string& address, int ttl_seconds) = 0;
    // The project with its new payout wallet, or the rejection (meta.code): invalid_signature,
    // challenge_not_found, challenge_used, challenge_expired, signer_mismatch,
    // current_wallet_signature_required, current_wallet_signer_mismatch (a key must always prove
    // the current wallet, ADR 0171).
    virtual domain::Result<ProjectView> verify_wallet(const WalletProofRequest& proof,
                                                      const std::string& key_id) = 0;
};

// ---- Webhook endpoints (WebhooksApi and `duepay admin webhook`: docs/webhooks.md, ADR 0198) ----

// An endpoint as the routes show it; `secret` is shown only on creation and rotation.
struct WebhookEndpoint {
    std::string id;  // we_ + 24 hex
    ProjectId project_id;
    Mode mode = Mode::test;
    std::string url;
    std::vector<std::string> events;  // webhook event types
    std::optional<std::string> description;
    std::string status;                          // enabled | disabled
    std::optional<std::string> disabled_reason;  // manual | failing
    std::optional<std::string> failing_since;    // RFC 3339
    std::optional<std::string> previous_secret_expires_at;
    std::string secret;
    std::string created_at;
    std::string updated_at;
};

// PATCH /v1/webhook-endpoints/:id, checked by the route: unset fields stay.
struct WebhookEndpointPatch {
    std::optional<std::string> url;
    std::optional<std::vector<std::string>> events;
    std::optional<std::optional<std::string>> description;  // set (a value or null) when present
    std::optional<std::string> status;                      // enabled | disabled
};

// One delivery attempt of an endpoint.
struct WebhookAttempt {
    std::int64_t id = 0;  // the page cursor
    std::string event_id;
    std::string event_type;
    int attempt = 0;
    std::string attempted_at;
    std::optional<int> response_status;
    int latency_ms = 0;
    std::optional<std::string> error;
    std::optional<std::string> next_retry_at;
    // The start of the receiver's answer as safe text (domain/webhooks/delivery_log); nullopt
    // when no answer arrived.
    std::optional<std::string> response_excerpt;
};

// The endpoints of a project and mode; an endpoint of another project or mode is never found.
class WebhookEndpoints {
  public:
    virtual ~WebhookEndpoints() = default;
    // Stores `endpoint` (id, secret and the rest chosen by the caller); the stored endpoint.
    virtual WebhookEndpoint create(const WebhookEndpoint& endpoint) = 0;
    // Newest first, at most `limit`, after the endpoint `starting_after` of the previous page.
    virtual std::vector<WebhookEndpoint> list(const ProjectId& project, Mode mode,
                                              std::size_t limit,
                                              const std::optional<std::string>& starting_after) = 0;
    virtual std::optional<WebhookEndpoint> find(const ProjectId& project, Mode mode,
                                                const std::string& id) = 0;
    virtual std::optional<WebhookEndpoint> update(const ProjectId& project, Mode mode,
                                                  const std::string& id,
                                                  const WebhookEndpointPatch& patch) = 0;
    // False when no such endpoint.
    virtual bool remove(const ProjectId& project, Mode mode, const std::string& id) = 0;
    // The new secret signs from now; the previous one also signs for `overlap`.
    virtual std::optional<WebhookEndpoint> rotate_secret(const ProjectId& project, Mode mode,
                                                         const std::string& id,
                                                         const std::string& secret,
                                                         std::chrono::seconds overlap) = 0;
    // Stores `event` and queues it for this endpoint only; false when no such endpoint.
    virtual bool send_test(const ProjectId& project, Mode mode, const std::string& endpoint_id,
                           const domain::webhooks::WebhookEvent& event) = 0;
    // Queues the stored event again for the endpoint; false when either is unknown here.
    virtual bool redeliver(const ProjectId& project, Mode mode, const std::string& event_id,
                           const std::string& endpoint_id) = 0;
    // The endpoint's attempts, newest first, before the attempt id `before`; nullopt when no such
    // endpoint.
    virtual std::optional<std::vector<WebhookAttempt>> attempts(
        const ProjectId& project, Mode mode, const std::string& endpoint_id, std::size_t limit,
        std::optional<std::int64_t> before) = 0;
};

// ---- Charges ----

// A charge as the API shows it (on create and on the full read, docs/product.md): built from the
// charge.created event for the 201 (charge_json.hpp view_of_created) and from the read model for
// reads. Typed (ADR 0206): the status is the domain's Status, amounts are TokenAmount, addresses
// Address; the adapter parses the stored text once (infra/postgres/api_ports) and the renderers
// write the canonical text once (charge_json.cpp, the checkout's checkout_view.cpp: decimal,
// EIP-55). The id stays in its canonical text (0x lower-case hex), the key every port takes.
struct ChargeView {
    std::string invoice_id;  // 0x + 64 lower-case hex
    ProjectId project_id;
    Mode mode = Mode::test;
    domain::ChainId chain_id;
    Status status = Status::pending;
    domain::TokenAmount amount;  // smallest unit
    domain::Address token;
    std::optional<std::string> token_symbol;
    std::optional<int> token_decimals;
    PaymentMode payment_mode = PaymentMode::both;
    domain::Address merchant;
    int fee_bps = 0;
    std::int64_t deadline = 0;  // unix seconds
    std::optional<domain::Address> deposit_address;
    std::optional<std::string> reference;
    std::optional<std::string> return_url;
    std::optional<std::string> fiat_json;      // JSON object text, shown as is
    std::optional<std::string> metadata_json;  // JSON object text; null when the charge has none
    domain::TokenAmount amount_confirmed;
    std::optional<std::string> exception;
    std::string timeline_json = "[]";  // JSON array text
    std::string created_at;            // RFC 3339
    std::string updated_at;            // RFC 3339
    domain::TokenAmount amount_refunded;
    std::string refunds_json = "[]";  // [{refundId, status, txHash, amount, to, reason}]
    // ADR 0230: the first issue nobody resolved (overpaid, paid_late, partial, wrong_token,
    // refund_rejected), and the latest resolution as a JSON object (resolution_json.hpp).
    std::optional<std::string> open_exception;
    std::optional<std::string> exception_resolution_json;
    domain::TokenAmount
        amount_late;  // confirmed deposits after expiry (received = confirmed + late)
};

// What the polling route needs: who owns the charge and where it stands.
struct ChargeStatus {
    ProjectId project_id;
    Status status = Status::pending;
    Mode mode = Mode::test;  // reads are scoped by the key's mode too
};

class ChargeReader {
  public:
    virtual ~ChargeReader() = default;
    virtual std::optional<ChargeView> find(const std::string& invoice_id) = 0;
    virtual std::optional<ChargeStatus> find_status(const std::string& invoice_id) = 0;
};

// The dashboard's exceptions lists (ADR 0230): charges with an issue nobody resolved, or with
// nothing open and a resolution.
enum class ExceptionList { open, resolved };

// One page of GET /v1/charges (docs/api.md "Listing charges"): a project's charges of one mode,
// newest first by (created_at, invoice_id), after a keyset position, with exact-match filters.
struct ChargeListQuery {
    ProjectId project_id;
    Mode mode = Mode::test;
    std::size_t limit = 20;  // rows returned at most (ask page size + 1 to learn hasMore)
    std::optional<Status> status;
    std::optional<std::int64_t> created_gte_us;  // unix microseconds, inclusive
    std::optional<std::int64_t> created_lt_us;   // unix microseconds, exclusive
    std::optional<std::string> reference;
    std::optional<std::uint64_t> chain_id;
    std::optional<std::string> metadata_json;  // a JSON object every row's metadata must contain
    std::optional<ExceptionList> exceptions;   // only the charges of that exceptions list
    struct After {
        std::int64_t created_us = 0;
        std::string invoice_id;
    };
    std::optional<After> after;  // strictly older than this (the previous page's last row)
};

struct ListedCharge {
    ChargeView charge;
    std::int64_t created_us = 0;  // created_at in unix microseconds (the keyset position)
};

class ChargeLister {
  public:
    virtual ~ChargeLister() = default;
    virtual std::vector<ListedCharge> list(const ChargeListQuery& query) = 0;
};

// The events of one charge as encoded on the topic, in log order (the projector's journal), for
// commands that fold the charge before deciding (refunds).
class ChargeHistory {
  public:
    virtual ~ChargeHistory() = default;
    virtual std::vector<std::string> events(const std::string& invoice_id) = 0;
};

// Waits until the projector has written a charge row. `done(true)` once the row exists,
// `done(false)` when `timeout` passed first; called exactly once, on a thread of the waiter.
class ProjectionWaiter {
  public:
    virtual ~ProjectionWaiter() = default;
    virtual void wait(const std::string& invoice_id, std::chrono::milliseconds timeout,
                      std::function<void(bool projected)> done) = 0;
};

// ---- Merchant events (GET /v1/events, docs/events-api.md) ----

// A position in the events listing: the last event of the previous page.
struct EventPosition {
    std::int64_t occurred_ms = 0;  // the event's createdAt, unix milliseconds
    std::string id;
};

struct EventQuery {
    ProjectId project_id;
    Mode mode = Mode::test;
    std::optional<std::string> type;             // one invoice.* type
    std::optional<std::int64_t> created_gte_ms;  // createdAt >= this
    std::optional<EventPosition> after;          // strictly older than this position
    std::size_t limit = 20;
};

struct MerchantEvent {
    EventPosition position;
    std::string body;  // {id, type, createdAt, mode, data}: the exact webhook body
};

// The merchant-facing events of a project and mode, newest first (keyset pages on position).
class MerchantEvents {
  public:
    virtual ~MerchantEvents() = default;
    virtual std::vector<MerchantEvent> list(const EventQuery& query) = 0;
    virtual std::optional<MerchantEvent> find(const ProjectId& project, Mode mode,
                                              const std::string& id) = 0;
};

// ---- Idempotency-Key claims of POST /v1/invoices and refunds (docs/limits.md, ADR 0091) ----

using RequestFingerprint = std::array<std::uint8_t, 32>;  // SHA-256 of method, path and body

struct StoredResponse {
    int status = 201;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    bool operator==(const StoredResponse&) const = default;
};

// What a create prepared before appending: the key is bound to it.
struct PreparedCreate {
    std::string invoice_id;  // 0x + 64 hex (the Kafka key)
    std::string event;       // the encoded charge.created (the Kafka value), byte for byte
    std::string body;        // the 201 body
    bool operator==(const PreparedCreate&) const = default;
};

enum class BeginOutcome {
    created,    // the row is ours (in flight): create the charge, then complete() or abandon()
    resume,     // ours again: a prepared charge of an earlier attempt whose outcome is unknown
    replay,     // a completed request with this key and body: answer `response`
    in_flight,  // another request holds the key right now: 409 idempotency_key_in_use
    mismatch,   // the key was used with another request: 422 idempotency_key_reused
};

struct BeginResult {
    BeginOutcome outcome = BeginOutcome::created;
    std::optional<StoredResponse> response;  // set for replay
    std::optional<PreparedCreate> prepared;  // set for resume
};

class IdempotencyKeys {
  public:
    virtual ~IdempotencyKeys() = default;
    virtual BeginResult begin(const ProjectId& project, const std::string& key,
                              const RequestFingerprint& fingerprint) = 0;
    // Stores a success; false if the key was no longer ours.
    virtual bool complete(const ProjectId& project, const std::string& key,
                          const RequestFingerprint& fingerprint,
                          const StoredResponse& response) = 0;
    virtual void abandon(const ProjectId& project, const std::string& key,
                         const RequestFingerprint& fingerprint) = 0;
    // Bound keys: prepare() before the append, unlock() after an unknown outcome; begin() then
    // answers `resume` with the prepared charge.
    virtual bool prepare(const ProjectId& project, const std::string& key,
                         const RequestFingerprint& fingerprint, const PreparedCreate& prepared) = 0;
    virtual void unlock(const ProjectId& project, const std::string& key,
                        const RequestFingerprint& fingerprint) = 0;
};

// ---- The creation rate limit and monthly quota of a project's plan (docs/limits.md) ----

enum class LimitOutcome { allowed, rate_limited, quota_exceeded };

struct LimitDecision {
    LimitOutcome outcome = LimitOutcome::allowed;
    std::int64_t retry_after_ms = 0;  // ceil; 0 when allowed
    std::string month;                // "YYYY-MM-01" (UTC) the quota was counted in
    std::int64_t month_count = 0;     // creations counted in that month after this call
    std::string decided_at;           // the store's clock used, as it prints it
};

class CreationLimiter {
  public:
    virtual ~CreationLimiter() = default;
    virtual LimitDecision take(const ProjectId& project, const std::string& plan) = 0;
    // Gives back the quota unit of `month` (no-op for an empty month: an unmetered plan).
    virtual void refund_quota(const ProjectId& project, const std::string& month) = 0;
};

}  // namespace duepay::ports
