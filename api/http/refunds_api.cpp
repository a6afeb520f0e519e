#include "api/http/refunds_api.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <memory>

#include "api/http/create_guard.hpp"
#include "api/http/envelope.hpp"
#include "api/http/idempotency_key.hpp"
#include "api/http/request_fields.hpp"
#include "domain/charge/decide.hpp"
#include "domain/events/event_json.hpp"
#include "domain/events/json_writer.hpp"
#include "domain/hex.hpp"
#include "domain/text.hpp"
#include "infra/log/log.hpp"

namespace duepay::api {
namespace {

constexpr infra::log::Logger kLog{"api"};

namespace ev = domain::events;
namespace ch = domain::charge;

constexpr std::string_view kCharges = "/v1/charges/";
constexpr std::string_view kRefunds = "/refunds";

ApiResponse charge_not_found() {
    return error_response(404, "charge_not_found", "charge not found");
}

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

// The Idempotency-Key claim of one POST: completed with the answer, or abandoned.
struct KeyClaim {
    IdempotencyKeys* keys = nullptr;
    ProjectId project_id;
    std::string key;  // empty: no claim
    ports::RequestFingerprint fingerprint{};

    void settle(const ApiResponse& answer) const {
        if (keys == nullptr || key.empty()) return;
        try {
            if (answer.status == 202) {
                keys->complete(project_id, key, fingerprint, {answer.status, {}, answer.body});
            } else {
                keys->abandon(project_id, key, fingerprint);
            }
        } catch (const std::exception& e) {
            // The answer stands; the key frees itself after the lock timeout.
            kLog.warn() << "api: idempotency key of a refund not settled: " << e.what();
        }
    }
};

}  // namespace

RefundsApi::RefundsApi(RefundsApiDeps deps) : deps_(std::move(deps)) {
    required(deps_.charges, "RefundsApiDeps.charges");
    required(deps_.history, "RefundsApiDeps.history");
    required(deps_.log, "RefundsApiDeps.log");
    if (!deps_.now_ms) throw std::invalid_argument("RefundsApiDeps.now_ms is required");
}

void RefundsApi::add_routes(RouteTable& routes) {
    // The charge id as written, checked, or the 400.
    auto invoice_id_of = [](const std::string& raw_id) -> std::optional<std::string> {
        const auto id = domain::parse_invoice_id(raw_id);
        if (!id || raw_id.size() != 66) return std::nullopt;
        return domain::to_hex(*id);
    };
    auto invalid_id = [] {
        return error_response(400, "invalid_invoice_id",
                              "invoiceId must be 0x followed by 64 hex digits");
    };
    const std::string pattern = std::string(kCharges) + ":id" + std::string(kRefunds);
    routes.add("GET", pattern, {}, [this, invoice_id_of, invalid_id](const RouteCall& call) {
        const auto invoice_id = invoice_id_of(call.params[0]);
        if (!invoice_id) return invalid_id();
        const auto& owner = call.key();
        const auto row = deps_.charges->find(*invoice_id);
        if (!row || row->project_id != owner.project_id || row->mode != owner.mode)
            return charge_not_found();
        return success_response(200, R"({"items":)" + row->refunds_json + "}");
    });
    routes.add_async(
        "POST", pattern, {},
        [this, invoice_id_of, invalid_id](const RouteCall& call, const Responder& respond) {
            const auto invoice_id = invoice_id_of(call.params[0]);
            if (!invoice_id) return respond(invalid_id());
            request_refund(call.request, call.key(), *invoice_id, respond);
        });
}

void RefundsApi::request_refund(const ApiRequest& request, const KeyOwner& owner,
                                const std::string& invoice_id, const Responder& respond) {
    rapidjson::Document doc;
    if (auto refused = parse_object_body(request.body, doc, kUtf8Body))
        return respond(std::move(*refused));
    for (const auto& m : doc.GetObject()) {
        const std::string_view name(m.name.GetString(), m.name.GetStringLength());
        if (name != "txHash") {
            return respond(error_response(400, "unknown_field",
                                          "unknown field " + domain::escape_for_log(name, 64)));
        }
    }
    const auto tx = doc.HasMember("txHash") && doc["txHash"].IsString()
                        ? domain::from_hex_fixed<32>(std::string_view(
                              doc["txHash"].GetString(), doc["txHash"].GetStringLength()))
                        : std::nullopt;
    const bool canonical = tx && doc["txHash"].GetStringLength() == 66 &&
                           std::string_view(doc["txHash"].GetString(), 2) == "0x";
    if (!canonical) {
        return respond(
            error_response(400, "invalid_tx_hash", "txHash must be 0x followed by 64 hex digits"));
    }
    const domain::Bytes32 tx_hash = *tx;

    KeyClaim claim{deps_.idempotency, owner.project_id, {}, {}};
    if (auto header = request.header("idempotency-key")) {
        auto key = parse_idempotency_key(*header);
        if (!key)
            return respond(error_response(400, "invalid_idempotency_key", key.error().message));
        if (deps_.idempotency != nullptr) {
            claim.fingerprint = request_fingerprint(request.method, request.path, request.body);
            auto begun = deps_.idempotency->begin(owner.project_id, *key, claim.fingerprint);
            switch (begun.outcome) {
                case BeginOutcome::replay:  // the stored answer (a refund stores no headers)
                    return respond(replayed(*begun.response));
                case BeginOutcome::in_flight:
                case BeginOutcome::mismatch:
                    return respond(idempotency_refusal(begun.outcome));
                case BeginOutcome::created:
                case BeginOutcome::resume:  // never prepared here: a fresh attempt
                    claim.key = *key;
                    break;
            }
        }
    }
    auto answer = [claim, respond](ApiResponse r) {
        claim.settle(r);
        respond(std::move(r));
    };
    try {
        const auto row = deps_.charges->find(invoice_id);
        if (!row || row->project_id != owner.project_id || row->mode != owner.mode)
            return answer(charge_not_found());
        // The command: fold the charge's events, let the decider judge the request.
        auto state = ch::initial_state();
        std::optional<ev::Event> created;
        for (const auto& payload : deps_.history->events(invoice_id)) {
            auto e = ev::decode_event(payload);
            if (!e) continue;  // the projector quarantined it; the fold skips it too
            if (!created && std::holds_alternative<ev::ChargeCreated>(e->data)) created = *e;
            ch::apply(state, *e);
        }
        if (!created) return answer(charge_not_found());
        const auto refund_id = ch::refund_id(created->invoice_id, tx_hash);
        auto decided = ch::decide(state, ch::RequestRefund{refund_id, tx_hash});
        if (!decided) {  // decide's code and words (charge_not_refundable: docs/refunds.md)
            return answer(error_response(409, decided.error().code, decided.error().message));
        }
        const std::string tx_text = domain::to_hex(tx_hash);
        if (decided->empty()) {  // asked before: the same refund, as it stands now
            const auto* r = ch::find_refund(state, refund_id);
            return answer(
                success_response(202, accepted_json(refund_id, ch::to_string(r->status), tx_text)));
        }
        ev::Event e;
        e.id = refund_id;  // a retry appends the same id: consumers keep one
        e.invoice_id = created->invoice_id;
        e.project_id = created->project_id;
        e.mode = created->mode;
        e.chain_id = created->chain_id;
        e.occurred_at = ev::format_rfc3339_millis_utc(deps_.now_ms());
        e.data = decided->front();
        const auto body = accepted_json(refund_id, "pending", tx_text);
        const auto retry_after = deps_.retry_after_ms;
        deps_.log->append_async(
            ports::LogRecord{invoice_id, ev::encode_event(e)},
            [answer, body, retry_after](const ports::AppendResult& result) {
                if (result.status == ports::AppendStatus::persisted)
                    return answer(success_response(202, body));
                if (result.status == ports::AppendStatus::possibly_persisted) {
                    return answer(error_response(
                        503, "event_log_outcome_unknown",
                        "the event log did not confirm the refund request; retry with the same "
                        "txHash (it names the same refund)",
                        retry_after));
                }
                answer(error_response(503, "event_log_unavailable",
                                      "the event log did not take the refund request; retry (the "
                                      "same txHash names the same refund)",
                                      retry_after));
            });
    } catch (...) {
        claim.settle(error_response(500, "internal_error", "internal server error"));
        throw;
    }
}

}  // namespace duepay::api
