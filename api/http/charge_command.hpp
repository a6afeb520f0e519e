// Commands on one charge, shared by the routes that append to a charge's stream (refunds_api:
// POST /v1/charges/:id/refunds and /resolve; the dashboard's exceptions page): find the charge
// of the caller's project and mode (else 404 charge_not_found), fold its events (the projector's
// journal), let the route's decider (domain::charge::decide underneath) say what to append, append
// it and answer once the event log has spoken (503 when it did not take the event, or did not
// confirm it). The Idempotency-Key of the API routes is claimed here too (docs/api.md).
// A command ends in a CommandOutcome: the answer of a command carried out, or a CommandRefusal
// holding decide's (or the command's) domain::Error; the REST routes wrap a refusal into the error
// envelope (to_response), the dashboard shows its message as it is.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>

#include "api/http/api_types.hpp"
#include "api/http/port_names.hpp"
#include "domain/charge/charge_state.hpp"
#include "domain/events/event.hpp"
#include "domain/result.hpp"
#include "domain/types.hpp"

namespace duepay::api {

struct ChargeCommandDeps {
    ChargeReader* charges = nullptr;
    ChargeHistory* history = nullptr;
    ports::EventLog* log = nullptr;
    std::function<std::int64_t()> now_ms;  // unix milliseconds: the event's occurredAt
    long long retry_after_ms = 1000;       // advertised on 503
};

// A command not carried out: the HTTP status of the REST answer, the code and words, and on a 503
// the Retry-After to advertise.
struct CommandRefusal {
    int status = 500;
    domain::Error error;
    std::optional<long long> retry_after_ms;
};

// The answer of a command carried out (a 2xx: done, or asked before), or its refusal.
using CommandOutcome = std::variant<ApiResponse, CommandRefusal>;
using CommandDone = std::function<void(CommandOutcome)>;

// The REST answer of an outcome: the carried-out answer as it is, a refusal as the error envelope
// (error_response of its status, code, message and Retry-After).
ApiResponse to_response(CommandOutcome outcome);

// What a command decided about the folded charge: an outcome now (a refusal, a repeat) or an event.
struct CommandDecision {
    std::optional<CommandOutcome> answer;           // answered; nothing appended
    std::optional<domain::events::EventData> data;  // else appended with this id
    std::string event_id;
    ApiResponse persisted;  // the answer once the log has the event
    std::string retry;      // the 503s' advice: "retry (the same txHash names the same refund)"
};

// `at` is the occurredAt the event will carry.
using ChargeDecider =
    std::function<CommandDecision(const domain::charge::ChargeState& state,
                                  const domain::events::Event& created, const std::string& at)>;

// Calls `done` exactly once, possibly later from the event log's thread.
void run_charge_command(const ChargeCommandDeps& deps, const ProjectId& project, Mode mode,
                        const std::string& invoice_id, const ChargeDecider& decide,
                        const CommandDone& done);

// A claimed Idempotency-Key: answer through `respond` (a 2xx answer is stored for the key, any
// other frees it), or, when the command throws instead of answering, `release` the key.
struct ClaimedKey {
    Responder respond;
    std::function<void()> release;
};

// The Idempotency-Key of an API command (as on creates): nullopt when `respond` was called
// already (a bad key 400, a stored answer replayed, 409 in flight, 422 reused). No header, or
// `keys` null (the header only validated): `respond` itself and a release that does nothing.
std::optional<ClaimedKey> claim_idempotency_key(IdempotencyKeys* keys, const ApiRequest& request,
                                                const KeyOwner& owner, const Responder& respond);

// The refund rule of POST /v1/charges/:id/refunds, for every surface that records one: the
// transaction hash as written ("0x" + 64 hex digits), else nullopt (and kInvalidTxHash's words).
std::optional<domain::Bytes32> parse_refund_tx_hash(std::string_view text);
inline constexpr std::string_view kInvalidTxHash = "txHash must be 0x followed by 64 hex digits";

// decide(RequestRefund): 202 {refundId, status, txHash}; a repeat answers the refund as it stands;
// 409 charge_not_refundable (docs/refunds.md).
ChargeDecider refund_decider(const domain::Bytes32& tx_hash);

// decide(ResolveException): 200 with the resolution (domain/charge/resolution_json.hpp); 409
// nothing_to_resolve / exception_already_resolved; 400 invalid_note (ADR 0230).
ChargeDecider resolve_decider(domain::events::Actor actor, std::string note);

}  // namespace duepay::api
