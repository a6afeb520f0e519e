// The charge routes of the REST API (docs/api.md): POST /v1/invoices, GET /v1/charges (the list),
// GET /v1/charges/:id and GET /v1/charges/:id/status, added to the API's route table
// (api/http/router.hpp runs routing, authentication and the error envelope). Independent of
// Pistache: a route answers through a Responder, possibly later from another thread (create
// answers once the event log acked and the projection has the row).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "api/http/api_types.hpp"
#include "api/http/port_names.hpp"
#include "api/http/router.hpp"
#include "domain/ports/event_log.hpp"
#include "domain/ports/rate_source.hpp"
#include "domain/ports/signer.hpp"
#include "domain/types.hpp"
#include "infra/config/chain_registry.hpp"

namespace duepay::api {

// Required unless marked optional: the constructor refuses a missing one (std::invalid_argument).
struct ApiDeps {
    ChargeReader* charges = nullptr;
    ChargeLister* lister = nullptr;
    ProjectionWaiter* waiter = nullptr;
    ports::EventLog* log = nullptr;
    const infra::config::ChainRegistry* chains = nullptr;
    // Optional: without it, charges are created without intent/signature.
    const ports::Signer* signer = nullptr;
    std::string checkout_url;              // e.g. http://127.0.0.1:8080
    std::function<std::int64_t()> now_ms;  // unix milliseconds
    std::function<domain::InvoiceId()> new_invoice_id;
    std::function<std::string()> new_event_id;
    std::chrono::milliseconds projection_timeout{5000};
    long long retry_after_ms = 1000;     // advertised on 503
    ports::RateSource* rates = nullptr;  // optional: fiat prices answer 501 (docs/pricing.md)
    unsigned fiat_buffer_bps = 50;       // in the merchant's favour, 0..10000
    // Optional: without it, an Idempotency-Key is validated, not stored.
    IdempotencyKeys* idempotency = nullptr;
    CreationLimiter* limiter = nullptr;  // optional: no rate limit or quota (docs/limits.md)
};

class ChargesApi {
  public:
    explicit ChargesApi(ApiDeps deps);

    // Adds the charge routes; they use this object, which must outlive the table.
    void add_routes(RouteTable& routes);

  private:
    void create(const ApiRequest& request, const KeyOwner& owner, Responder respond);
    ApiResponse read(const std::string& raw_id, const KeyOwner& owner, bool status_only);
    ApiResponse list(const ApiRequest& request, const KeyOwner& owner);

    ApiDeps deps_;
};

// A UUID v4 text from the CSPRNG (event ids of commands).
std::string new_uuid();

}  // namespace duepay::api
