#include "api/http/charges_api.hpp"

#include <rapidjson/stringbuffer.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "api/http/charge_json.hpp"
#include "api/http/charge_list.hpp"
#include "api/http/envelope.hpp"
#include "domain/events/json_writer.hpp"
#include "domain/hex.hpp"
#include "infra/random/random.hpp"

namespace duepay::api {

std::string new_uuid() {
    auto b = infra::random::random_bytes<16>();
    b[6] = static_cast<std::uint8_t>((b[6] & 0x0f) | 0x40);
    b[8] = static_cast<std::uint8_t>((b[8] & 0x3f) | 0x80);
    const std::string hex = domain::to_hex(b).substr(2);
    return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
           hex.substr(16, 4) + "-" + hex.substr(20);
}

ChargesApi::ChargesApi(ApiDeps deps) : deps_(std::move(deps)) {
    required(deps_.charges, "ApiDeps.charges");
    required(deps_.lister, "ApiDeps.lister");
    required(deps_.waiter, "ApiDeps.waiter");
    required(deps_.log, "ApiDeps.log");
    required(deps_.chains, "ApiDeps.chains");
    if (!deps_.now_ms || !deps_.new_invoice_id || !deps_.new_event_id) {
        throw std::invalid_argument(
            "ApiDeps: now_ms, new_invoice_id and new_event_id are required");
    }
}

void ChargesApi::add_routes(RouteTable& routes) {
    RouteOptions create_options;
    create_options.json_body = true;
    // A copy of the request: if create throws before answering, the pipeline still has it.
    routes.add_async("POST", "/v1/invoices", create_options,
                     [this](const RouteCall& call, Responder respond) {
                         create(call.request, call.key(), std::move(respond));
                     });
    RouteOptions list_options;
    list_options.own_query = true;  // the list has its parameters; the others take none
    routes.add("GET", "/v1/charges", list_options,
               [this](const RouteCall& call) { return list(call.request, call.key()); });
    routes.add("GET", "/v1/charges/:id", {},
               [this](const RouteCall& call) { return read(call.params[0], call.key(), false); });
    routes.add("GET", "/v1/charges/:id/status", {},
               [this](const RouteCall& call) { return read(call.params[0], call.key(), true); });
}

ApiResponse ChargesApi::read(const std::string& raw_id, const KeyOwner& owner, bool status_only) {
    auto id = domain::parse_invoice_id(raw_id);
    if (!id || raw_id.size() != 66) {
        return bad_request("invalid_invoice_id", "invoiceId must be 0x followed by 64 hex digits");
    }
    const std::string invoice_id = domain::to_hex(*id);
    if (status_only) {
        auto status = deps_.charges->find_status(invoice_id);
        // Scoped like creates: the key's project AND mode; the other mode's charge does not exist.
        if (!status || status->project_id != owner.project_id || status->mode != owner.mode) {
            return error_response(404, "charge_not_found", "charge not found");
        }
        return success_response(200, R"({"invoiceId":")" + invoice_id + R"(","status":")" +
                                         std::string(domain::charge::to_string(status->status)) +
                                         "\"}");
    }
    auto charge = deps_.charges->find(invoice_id);
    if (!charge || charge->project_id != owner.project_id || charge->mode != owner.mode) {
        return error_response(404, "charge_not_found", "charge not found");
    }
    const auto branding = branding_of(owner);
    return success_response(200, charge_read_json(*charge, deps_.chains->find(charge->chain_id),
                                                  deps_.signer, deps_.checkout_url, &branding));
}

ApiResponse ChargesApi::list(const ApiRequest& request, const KeyOwner& owner) {
    auto parsed = parse_list_query(request, owner);
    if (!parsed) return bad_request(parsed.error().code, parsed.error().message);
    auto query = std::move(parsed).value();
    const std::size_t page = query.limit;
    query.limit = page + 1;  // one more row says whether there is a next page
    auto rows = deps_.lister->list(query);
    const bool more = rows.size() > page;
    if (more) rows.resize(page);
    // Each item is the full read (2.5) without the freshly signed intent: no signer. The page is
    // written into one buffer.
    const auto branding = branding_of(owner);
    rapidjson::StringBuffer buffer;
    buffer.Reserve(1024 * (rows.size() + 1));  // an item is about 1 KB
    domain::json::Writer w(buffer);
    w.StartObject();
    w.Key("items");
    w.StartArray();
    for (const auto& listed : rows) {
        const auto& charge = listed.charge;
        write_listed_charge_json(w, charge, deps_.chains->find(charge.chain_id), deps_.checkout_url,
                                 &branding);
    }
    w.EndArray();
    w.Key("hasMore");
    w.Bool(more);
    w.Key("nextCursor");
    if (more) {
        const auto cursor =
            encode_list_cursor({rows.back().created_us, rows.back().charge.invoice_id});
        w.String(cursor.data(), static_cast<rapidjson::SizeType>(cursor.size()));
    } else {
        w.Null();
    }
    w.EndObject();
    return success_response(200, std::string_view(buffer.GetString(), buffer.GetSize()));
}

}  // namespace duepay::api
