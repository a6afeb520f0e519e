#include "api/http/charges_api.hpp"

#include <rapidjson/stringbuffer.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "api/http/account_api.hpp"
#include "api/http/charge_json.hpp"
#include "api/http/charge_list.hpp"
#include "api/http/envelope.hpp"
#include "api/http/events_api.hpp"
#include "api/http/refunds_api.hpp"
#include "api/http/request_fields.hpp"
#include "api/http/webhooks_api.hpp"
#include "domain/events/json_writer.hpp"
#include "domain/hex.hpp"
#include "infra/log/log.hpp"
#include "infra/random/random.hpp"

namespace duepay::api {
namespace {

constexpr infra::log::Logger kLog{"api"};

// The routes this class serves itself, in the order of `Route`: the one method each takes, and
// whether it has query parameters of its own.
enum class Route { create, list, read, status };
struct RouteSpec {
    Route route;
    const char* method;
    bool has_params;
};
constexpr RouteSpec kRoutes[] = {
    {Route::create, "POST", false},  // /v1/invoices
    {Route::list, "GET", true},      // /v1/charges (only with a lister)
    {Route::read, "GET", false},     // /v1/charges/:id
    {Route::status, "GET", false},   // /v1/charges/:id/status
};

struct RouteMatch {
    Route route;
    std::string charge_id;  // as written in the path (read and status)
};

// Which of kRoutes `path` names, if any.
std::optional<RouteMatch> match_route(std::string_view path, bool has_lister) {
    constexpr std::string_view kInvoices = "/v1/invoices";
    constexpr std::string_view kChargeList = "/v1/charges";
    constexpr std::string_view kCharge = "/v1/charges/";
    constexpr std::string_view kStatus = "/status";
    if (path == kInvoices) return RouteMatch{Route::create, {}};
    if (path == kChargeList) {
        if (has_lister) return RouteMatch{Route::list, {}};
        return std::nullopt;
    }
    if (!path.starts_with(kCharge) || path.size() == kCharge.size()) return std::nullopt;
    std::string_view rest = path.substr(kCharge.size());
    Route route = Route::read;
    if (rest.ends_with(kStatus)) {
        rest.remove_suffix(kStatus.size());
        route = Route::status;
    }
    if (rest.empty() || rest.find('/') != std::string_view::npos) return std::nullopt;
    return RouteMatch{route, std::string(rest)};
}

ApiResponse unauthorized() { return error_response(401, "invalid_api_key", "invalid API key"); }

ApiResponse method_not_allowed(const char* allowed) {
    auto r = error_response(405, "method_not_allowed", "method not allowed");
    r.headers["allow"] = allowed;
    return r;
}

}  // namespace

std::string new_uuid() {
    auto b = infra::random::random_bytes<16>();
    b[6] = static_cast<std::uint8_t>((b[6] & 0x0f) | 0x40);
    b[8] = static_cast<std::uint8_t>((b[8] & 0x3f) | 0x80);
    const std::string hex = domain::to_hex(b).substr(2);
    return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
           hex.substr(16, 4) + "-" + hex.substr(20);
}

ChargesApi::ChargesApi(ApiDeps deps) : deps_(std::move(deps)), auth_(*deps_.keys) {}

void ChargesApi::handle(const ApiRequest& request, Responder respond) {
    try {
        if (request.path == "/healthz") {
            if (request.method != "GET") return respond(method_not_allowed("GET"));
            return respond(success_response(200, R"({"status":"ok"})"));
        }
        if (deps_.webhooks != nullptr && WebhooksApi::owns(request.path)) {
            return respond(deps_.webhooks->handle(request));
        }
        if (deps_.account != nullptr && AccountApi::owns(request.path)) {
            return respond(deps_.account->handle(request));
        }
        if (deps_.events != nullptr && EventsApi::owns(request.path)) {
            return respond(deps_.events->handle(request));
        }
        if (deps_.refunds != nullptr && RefundsApi::owns(request.path)) {
            return deps_.refunds->handle(request, respond);
        }
        const auto match = match_route(request.path, deps_.lister != nullptr);
        if (!match) return respond(error_response(404, "route_not_found", "no such route"));
        const auto& route = kRoutes[static_cast<std::size_t>(match->route)];
        if (request.method != route.method) return respond(method_not_allowed(route.method));
        auto owner = auth_.authenticate(request);
        if (!owner) return respond(unauthorized());
        // The list has its parameters; the create and the reads take none (ADR 0162).
        if (!route.has_params) {
            if (auto unknown = reject_unknown_params(request, {}))
                return respond(std::move(*unknown));
        }
        switch (match->route) {
            case Route::create:
                // A copy: if create throws before answering, the handlers below still have it.
                return create(request, *owner, respond);
            case Route::list:
                return respond(list(request, *owner));
            case Route::read:
                return respond(read(match->charge_id, *owner, false));
            case Route::status:
                return respond(read(match->charge_id, *owner, true));
        }
    } catch (const ports::StoreUnavailable& e) {
        kLog.warn().with("request_id", request.request_id)
            << "api: database unavailable: " << e.what();
        respond(error_response(503, "database_unavailable",
                               "the database is unavailable; retry later", deps_.retry_after_ms));
    } catch (const std::exception& e) {
        kLog.error().with("request_id", request.request_id) << "api: internal error: " << e.what();
        respond(error_response(500, "internal_error", "internal server error"));
    }
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
        return success_response(
            200, R"({"invoiceId":")" + invoice_id + R"(","status":")" + status->status + "\"}");
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
    if (auto* error = std::get_if<ApiResponse>(&parsed)) return std::move(*error);
    auto query = std::get<ChargeListQuery>(std::move(parsed));
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
