// The merchant's commands on a charge.
// Refunds recorded from the chain (docs/refunds.md, ADR 0166): the merchant sends the refund from
// their payout wallet, then asks duepay to record it; chainwatch verifies the transaction.
//   POST /v1/charges/:id/refunds   {"txHash": "0x..."}  -> 202 {refundId, status, txHash}
//   GET  /v1/charges/:id/refunds                        -> 200 {items: [...]}
// Exceptions resolved by a person (ADR 0230): charge.exception_resolved, named by the key.
//   POST /v1/charges/:id/resolve   {"note": "..."}      -> 200 {exception, refundId, note,
//                                                               resolvedBy, resolvedAt}
// Each POST is a command (api/http/charge_command.hpp): the charge's events (the projector's
// journal) are folded and domain::charge::decide (RequestRefund, ResolveException) says what is
// appended; the refund id is derived from (invoiceId, txHash), so asking twice names the same
// refund. Idempotency-Key is honoured as on creates. Added to the API's route table
// (api/http/router.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "api/http/api_types.hpp"
#include "api/http/charge_command.hpp"
#include "api/http/port_names.hpp"
#include "api/http/router.hpp"
#include "domain/ports/event_log.hpp"

namespace duepay::api {

struct RefundsApiDeps {
    ChargeReader* charges = nullptr;
    ChargeHistory* history = nullptr;
    ports::EventLog* log = nullptr;
    IdempotencyKeys* idempotency = nullptr;  // null: Idempotency-Key validated, not stored
    std::function<std::int64_t()> now_ms;    // unix milliseconds
    long long retry_after_ms = 1000;         // advertised on 503
};

class RefundsApi {
  public:
    explicit RefundsApi(RefundsApiDeps deps);

    // Adds GET and POST /v1/charges/:id/refunds and POST /v1/charges/:id/resolve (a POST answers
    // after the event log's verdict); this object must outlive the table.
    void add_routes(RouteTable& routes);

  private:
    void request_refund(const ApiRequest& request, const KeyOwner& owner,
                        const std::string& invoice_id, const Responder& respond);
    void resolve(const ApiRequest& request, const KeyOwner& owner, const std::string& invoice_id,
                 const Responder& respond);
    // The Idempotency-Key, then run_charge_command with `decider`.
    void run(const ApiRequest& request, const KeyOwner& owner, const std::string& invoice_id,
             const ChargeDecider& decider, const Responder& respond);
    ChargeCommandDeps command_deps() const;

    RefundsApiDeps deps_;
};

}  // namespace duepay::api
