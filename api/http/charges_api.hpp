// The routes of the REST API (docs/api.md): POST /v1/invoices, GET /v1/charges (the list),
// GET /v1/charges/:id and GET /v1/charges/:id/status, plus 404/405 for everything else. Independent
// of Pistache: a route gets an ApiRequest and answers through a Responder, possibly later from
// another thread (create answers once the event log acked and the projection has the row).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "api/http/api_types.hpp"
#include "api/http/auth.hpp"
#include "api/http/port_names.hpp"
#include "domain/ports/event_log.hpp"
#include "domain/ports/rate_source.hpp"
#include "domain/ports/signer.hpp"
#include "domain/types.hpp"
#include "infra/config/chain_registry.hpp"

namespace duepay::api {

class WebhooksApi;
class AccountApi;
class EventsApi;
class RefundsApi;

struct ApiDeps {
    KeyDirectory* keys = nullptr;
    ChargeReader* charges = nullptr;
    ChargeLister* lister = nullptr;  // null: GET /v1/charges is a 404
    ProjectionWaiter* waiter = nullptr;
    ports::EventLog* log = nullptr;
    const infra::config::ChainRegistry* chains = nullptr;
    const ports::Signer* signer = nullptr;  // null: charges are created without intent/signature
    std::string checkout_url;               // e.g. http://127.0.0.1:8080
    std::function<std::int64_t()> now_ms;   // unix milliseconds
    std::function<domain::InvoiceId()> new_invoice_id;
    std::function<std::string()> new_event_id;
    std::chrono::milliseconds projection_timeout{5000};
    long long retry_after_ms = 1000;         // advertised on 503
    ports::RateSource* rates = nullptr;      // null: fiat prices answer 501 (docs/pricing.md)
    unsigned fiat_buffer_bps = 50;           // in the merchant's favour, 0..10000
    IdempotencyKeys* idempotency = nullptr;  // null: Idempotency-Key is validated, not stored
    CreationLimiter* limiter = nullptr;      // null: no rate limit or quota (docs/limits.md)
    WebhooksApi* webhooks = nullptr;         // null: /v1/webhook-* are 404s (docs/webhooks.md)
    AccountApi* account = nullptr;  // null: key roll, /v1/project, /v1/payout-wallet/* are 404s
    EventsApi* events = nullptr;    // null: /v1/events are 404s (docs/events-api.md)
    RefundsApi* refunds = nullptr;  // null: /v1/charges/:id/refunds are 404s (docs/refunds.md)
};

class ChargesApi {
  public:
    explicit ChargesApi(ApiDeps deps);

    // Routes one request; `respond` is called exactly once.
    void handle(const ApiRequest& request, Responder respond);

  private:
    void create(const ApiRequest& request, const KeyOwner& owner, Responder respond);
    ApiResponse read(const std::string& raw_id, const KeyOwner& owner, bool status_only);
    ApiResponse list(const ApiRequest& request, const KeyOwner& owner);

    ApiDeps deps_;
    Authenticator auth_;
};

// A UUID v4 text from the CSPRNG (event ids of commands).
std::string new_uuid();

}  // namespace duepay::api
