#include "api/http/charge_command.hpp"

#include <rapidjson/stringbuffer.h>

#include <memory>
#include <utility>

#include "api/http/create_guard.hpp"
#include "api/http/envelope.hpp"
#include "api/http/idempotency_key.hpp"
#include "domain/charge/decide.hpp"
#include "domain/charge/resolution_json.hpp"
#include "domain/events/event_json.hpp"
#include "domain/events/json_writer.hpp"
#include "domain/hex.hpp"
#include "infra/log/log.hpp"

namespace duepay::api {
namespace {

constexpr infra::log::Logger kLog{"api"};

namespace ev = domain::events;
namespace ch = domain::charge;

std::string accepted_json(const std::string& refund_id, std::string_view status,
                          const std::string& tx_hash) {
    rapidjson::StringBuffer b;
    domain::json::Writer w(b);
    w.StartObject();
    domain::json::str(w, "refundId", refund_id);
    domain::json::str(w, "status", status);
    domain::json::str(w, "txHash", tx_hash);
    w.EndObject();
    return {b.GetString(), b.GetSize()};
}

CommandRefusal refused(int status, std::string code, std::string message,
                       std::optional<long long> retry_after_ms = std::nullopt) {
    return CommandRefusal{status, domain::make_error(std::move(code), std::move(message)),
                          retry_after_ms};
}

// decide's refusal as the command's answer: invalid_note is the caller's input (400), an actor
// not of its form is ours (500: the routes name the authenticated caller), every other code says
// the charge cannot take the command now (409).
CommandRefusal refusal(const domain::Error& e) {
    if (e.code == "invalid_actor") {
        kLog.error() << "api: a charge command named an actor decide refuses: " << e.message;
        return refused(500, "internal_error", "internal server error");
    }
    return CommandRefusal{e.code == "invalid_note" ? 400 : 409, e, std::nullopt};
}

}  // namespace

ApiResponse to_response(CommandOutcome outcome) {
    if (auto* done = std::get_if<ApiResponse>(&outcome)) return std::move(*done);
    const auto& r = std::get<CommandRefusal>(outcome);
    return error_response(r.status, r.error.code, r.error.message, r.retry_after_ms);
}

void run_charge_command(const ChargeCommandDeps& deps, const ProjectId& project, Mode mode,
                        const std::string& invoice_id, const ChargeDecider& decide,
                        const CommandDone& done) {
    auto not_found = [] { return refused(404, "charge_not_found", "charge not found"); };
    const auto row = deps.charges->find(invoice_id);
    if (!row || row->project_id != project || row->mode != mode) return done(not_found());
    auto state = ch::initial_state();
    std::optional<ev::Event> created;
    for (const auto& payload : deps.history->events(invoice_id)) {
        auto e = ev::decode_event(payload);
        if (!e) continue;  // the projector quarantined it; the fold skips it too
        if (!created && std::holds_alternative<ev::ChargeCreated>(e->data)) created = *e;
        ch::apply(state, *e);
    }
    if (!created) return done(not_found());
    const auto at = ev::format_rfc3339_millis_utc(deps.now_ms());
    auto decision = decide(state, *created, at);
    if (decision.answer || !decision.data) {
        return done(decision.answer ? std::move(*decision.answer)
                                    : refused(500, "internal_error", "no decision"));
    }
    ev::Event e;
    e.id = decision.event_id;
    e.invoice_id = created->invoice_id;
    e.project_id = created->project_id;
    e.mode = created->mode;
    e.chain_id = created->chain_id;
    e.occurred_at = at;
    e.data = std::move(*decision.data);
    deps.log->append_async(
        ports::LogRecord{invoice_id, ev::encode_event(e)},
        [done, persisted = std::move(decision.persisted), retry = std::move(decision.retry),
         retry_after = deps.retry_after_ms](const ports::AppendResult& result) {
            if (result.status == ports::AppendStatus::persisted) return done(persisted);
            if (result.status == ports::AppendStatus::possibly_persisted) {
                return done(refused(503, "event_log_outcome_unknown",
                                    "the event log did not confirm the command; " + retry,
                                    retry_after));
            }
            done(refused(503, "event_log_unavailable",
                         "the event log did not take the command; " + retry, retry_after));
        });
}

std::optional<ClaimedKey> claim_idempotency_key(IdempotencyKeys* keys, const ApiRequest& request,
                                                const KeyOwner& owner, const Responder& respond) {
    const ClaimedKey unclaimed{respond, [] {}};
    auto header = request.header("idempotency-key");
    if (!header) return unclaimed;
    auto key = parse_idempotency_key(*header);
    if (!key) {
        respond(error_response(400, "invalid_idempotency_key", key.error().message));
        return std::nullopt;
    }
    if (keys == nullptr) return unclaimed;
    const auto fingerprint = request_fingerprint(request.method, request.path, request.body);
    auto begun = keys->begin(owner.project_id, *key, fingerprint);
    switch (begun.outcome) {
        case BeginOutcome::replay:  // the stored answer (a command stores no headers)
            respond(replayed(*begun.response));
            return std::nullopt;
        case BeginOutcome::in_flight:
        case BeginOutcome::mismatch:
            respond(idempotency_refusal(begun.outcome));
            return std::nullopt;
        case BeginOutcome::created:
        case BeginOutcome::resume:  // never prepared here: a fresh attempt
            break;
    }
    auto settle = [keys, project = owner.project_id, key = *key,
                   fingerprint](const ApiResponse* answer) {
        try {
            if (answer != nullptr && answer->status >= 200 && answer->status < 300) {
                keys->complete(project, key, fingerprint, {answer->status, {}, answer->body});
            } else {
                keys->abandon(project, key, fingerprint);
            }
        } catch (const std::exception& e) {
            // The answer stands; the key frees itself after the lock timeout.
            kLog.warn() << "api: idempotency key of a charge command not settled: " << e.what();
        }
    };
    return ClaimedKey{[settle, respond](ApiResponse answer) {
                          settle(&answer);
                          respond(std::move(answer));
                      },
                      [settle] { settle(nullptr); }};
}

std::optional<domain::Bytes32> parse_refund_tx_hash(std::string_view text) {
    if (text.size() != 66 || !text.starts_with("0x")) return std::nullopt;
    return domain::from_hex_fixed<32>(text);
}

ChargeDecider refund_decider(const domain::Bytes32& tx_hash) {
    return [tx_hash](const ch::ChargeState& state, const ev::Event& created, const std::string&) {
        CommandDecision d;
        const auto id = ch::refund_id(created.invoice_id, tx_hash);
        auto decided = ch::decide(state, ch::RequestRefund{id, tx_hash});
        const std::string tx_text = domain::to_hex(tx_hash);
        if (!decided) {  // decide's code and words (charge_not_refundable: docs/refunds.md)
            d.answer = refusal(decided.error());
        } else if (decided->empty()) {  // asked before: the same refund, as it stands now
            const auto* r = ch::find_refund(state, id);
            d.answer = success_response(202, accepted_json(id, ch::to_string(r->status), tx_text));
        } else {
            d.data = decided->front();
            d.event_id = id;  // a retry appends the same id: consumers keep one
            d.persisted = success_response(202, accepted_json(id, "pending", tx_text));
            d.retry = "retry (the same txHash names the same refund)";
        }
        return d;
    };
}

ChargeDecider resolve_decider(ev::Actor actor, std::string note) {
    return [actor = std::move(actor), note = std::move(note)](
               const ch::ChargeState& state, const ev::Event& created, const std::string& at) {
        CommandDecision d;
        auto decided = ch::decide(state, ch::ResolveException{actor, note});
        if (!decided) {
            d.answer = refusal(decided.error());
            return d;
        }
        const auto& resolved = std::get<ev::ExceptionResolved>(decided->front());
        ch::Resolution r{{resolved.exception, resolved.refund_id.value_or("")},
                         resolved.resolved_by,
                         resolved.note,
                         at};
        d.data = decided->front();
        d.event_id = ch::resolution_event_id(created.invoice_id, r.issue);
        d.persisted = success_response(200, ch::resolution_json(r));
        d.retry = "retry (a resolution that landed answers 409 exception_already_resolved)";
        return d;
    };
}

}  // namespace duepay::api
