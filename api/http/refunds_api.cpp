#include "api/http/refunds_api.hpp"

#include <rapidjson/document.h>

#include "api/http/charge_command.hpp"
#include "api/http/envelope.hpp"
#include "api/http/request_fields.hpp"
#include "domain/hex.hpp"
#include "domain/text.hpp"

namespace duepay::api {
namespace {

namespace ev = domain::events;

constexpr std::string_view kCharges = "/v1/charges/";

// The charge id as written, checked, or nullopt (the 400 below).
std::optional<std::string> invoice_id_of(const std::string& raw_id) {
    const auto id = domain::parse_invoice_id(raw_id);
    if (!id || raw_id.size() != 66) return std::nullopt;
    return domain::to_hex(*id);
}

ApiResponse invalid_id() {
    return error_response(400, "invalid_invoice_id",
                          "invoiceId must be 0x followed by 64 hex digits");
}

// The body's one allowed member, else the 400 (unknown fields are refused: ADR 0162).
std::optional<ApiResponse> only_member(const rapidjson::Document& doc, std::string_view allowed) {
    for (const auto& m : doc.GetObject()) {
        const std::string_view name(m.name.GetString(), m.name.GetStringLength());
        if (name != allowed) {
            return error_response(400, "unknown_field",
                                  "unknown field " + domain::escape_for_log(name, 64));
        }
    }
    return std::nullopt;
}

std::optional<std::string_view> string_member(const rapidjson::Document& doc, const char* name) {
    if (!doc.HasMember(name) || !doc[name].IsString()) return std::nullopt;
    return std::string_view(doc[name].GetString(), doc[name].GetStringLength());
}

}  // namespace

RefundsApi::RefundsApi(RefundsApiDeps deps) : deps_(std::move(deps)) {
    required(deps_.charges, "RefundsApiDeps.charges");
    required(deps_.history, "RefundsApiDeps.history");
    required(deps_.log, "RefundsApiDeps.log");
    if (!deps_.now_ms) throw std::invalid_argument("RefundsApiDeps.now_ms is required");
}

ChargeCommandDeps RefundsApi::command_deps() const {
    return ChargeCommandDeps{deps_.charges, deps_.history, deps_.log, deps_.now_ms,
                             deps_.retry_after_ms};
}

void RefundsApi::add_routes(RouteTable& routes) {
    const std::string charge = std::string(kCharges) + ":id";
    routes.add("GET", charge + "/refunds", {}, [this](const RouteCall& call) {
        const auto invoice_id = invoice_id_of(call.params[0]);
        if (!invoice_id) return invalid_id();
        const auto& owner = call.key();
        const auto row = deps_.charges->find(*invoice_id);
        if (!row || row->project_id != owner.project_id || row->mode != owner.mode)
            return error_response(404, "charge_not_found", "charge not found");
        return success_response(200, R"({"items":)" + row->refunds_json + "}");
    });
    routes.add_async("POST", charge + "/refunds", {},
                     [this](const RouteCall& call, const Responder& respond) {
                         const auto invoice_id = invoice_id_of(call.params[0]);
                         if (!invoice_id) return respond(invalid_id());
                         request_refund(call.request, call.key(), *invoice_id, respond);
                     });
    routes.add_async("POST", charge + "/resolve", {},
                     [this](const RouteCall& call, const Responder& respond) {
                         const auto invoice_id = invoice_id_of(call.params[0]);
                         if (!invoice_id) return respond(invalid_id());
                         resolve(call.request, call.key(), *invoice_id, respond);
                     });
}

void RefundsApi::request_refund(const ApiRequest& request, const KeyOwner& owner,
                                const std::string& invoice_id, const Responder& respond) {
    rapidjson::Document doc;
    if (auto refused = parse_object_body(request.body, doc, kUtf8Body))
        return respond(std::move(*refused));
    if (auto refused = only_member(doc, "txHash")) return respond(std::move(*refused));
    const auto tx = parse_refund_tx_hash(string_member(doc, "txHash").value_or(""));
    if (!tx) {
        return respond(error_response(400, "invalid_tx_hash", std::string(kInvalidTxHash)));
    }
    run(request, owner, invoice_id, refund_decider(*tx), respond);
}

void RefundsApi::resolve(const ApiRequest& request, const KeyOwner& owner,
                         const std::string& invoice_id, const Responder& respond) {
    rapidjson::Document doc;
    if (auto refused = parse_object_body(request.body, doc, kUtf8Body))
        return respond(std::move(*refused));
    if (auto refused = only_member(doc, "note")) return respond(std::move(*refused));
    const auto raw = string_member(doc, "note");
    auto note =
        raw ? ev::normalize_resolution_note(*raw)
            : domain::Result<std::string>(domain::make_error(
                  "invalid_note", "note is required: a string of 1 to " +
                                      std::to_string(ev::kMaxResolutionNoteChars) + " characters"));
    if (!note) return respond(error_response(400, note.error().code, note.error().message));
    run(request, owner, invoice_id,
        resolve_decider(ev::Actor{ev::ActorKind::key, owner.key_id, std::nullopt}, *note), respond);
}

void RefundsApi::run(const ApiRequest& request, const KeyOwner& owner,
                     const std::string& invoice_id, const ChargeDecider& decider,
                     const Responder& respond) {
    auto claimed = claim_idempotency_key(deps_.idempotency, request, owner, respond);
    if (!claimed) return;
    try {
        run_charge_command(command_deps(), owner.project_id, owner.mode, invoice_id, decider,
                           [respond = claimed->respond](CommandOutcome outcome) {
                               respond(to_response(std::move(outcome)));
                           });
    } catch (...) {
        claimed->release();  // the pipeline answers the 500 or 503 of what was thrown
        throw;
    }
}

}  // namespace duepay::api
