#include "api/http/events_api.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "api/http/envelope.hpp"
#include "domain/events/event.hpp"
#include "domain/hex.hpp"
#include "domain/text.hpp"
#include "domain/webhooks/webhook_event.hpp"
#include "infra/webhooks/endpoints.hpp"

namespace duepay::api {
namespace {

constexpr std::string_view kEvents = "/v1/events";

ApiResponse event_not_found() {
    return error_response(404, "event_not_found", "no such event for this key's project and mode");
}

bool is_merchant_event_type(std::string_view type) {
    return type.starts_with("invoice.") && domain::webhooks::is_webhook_event_type(type);
}

}  // namespace

std::string encode_event_cursor(const EventPosition& p) {
    const std::string text = std::to_string(p.occurred_ms) + ":" + p.id;
    return domain::to_hex(std::span<const std::uint8_t>(
                              reinterpret_cast<const std::uint8_t*>(text.data()), text.size()))
        .substr(2);
}

std::optional<EventPosition> decode_event_cursor(const std::string& text) {
    if (text.size() > 256 || text.starts_with("0x") || text.starts_with("0X")) return std::nullopt;
    const auto bytes = domain::from_hex(text);
    if (!bytes) return std::nullopt;
    const std::string plain(bytes->begin(), bytes->end());
    const auto colon = plain.find(':');
    if (colon == std::string::npos || colon == 0 || colon > 15) return std::nullopt;
    const auto ms = plain.substr(0, colon);
    if (ms.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    EventPosition p{std::stoll(ms), plain.substr(colon + 1)};
    if (!infra::webhooks::is_event_id(p.id)) return std::nullopt;
    return p;
}

EventsApi::EventsApi(EventsApiDeps deps) : deps_(deps) {
    required(deps_.events, "EventsApiDeps.events");
}

void EventsApi::add_routes(RouteTable& routes) {
    RouteOptions list_options;
    list_options.own_query = true;
    routes.add("GET", std::string(kEvents), list_options,
               [this](const RouteCall& call) { return list(call.request, call.key()); });
    routes.add("GET", std::string(kEvents) + "/:id", {}, [this](const RouteCall& call) {
        const auto& id = call.params[0];
        if (!infra::webhooks::is_event_id(id)) return event_not_found();
        auto event = deps_.events->find(call.key().project_id, call.key().mode, id);
        if (!event) return event_not_found();
        return success_response(200, event->body);
    });
}

ApiResponse EventsApi::list(const ApiRequest& request, const KeyOwner& owner) {
    EventQuery q;
    q.project_id = owner.project_id;
    q.mode = owner.mode;
    if (auto unknown = request.unknown_query_param({"limit", "cursor", "type", "createdGte"})) {
        return bad_request("unknown_field",
                           "unknown query parameter " + domain::escape_for_log(*unknown, 64));
    }
    const auto limit = parse_limit_param(request);
    if (!limit) return bad_request("invalid_limit", "limit must be an integer from 1 to 100");
    q.limit = *limit + 1;  // one more tells whether there is a next page
    if (auto cursor = request.query_param("cursor")) {
        q.after = decode_event_cursor(*cursor);
        if (!q.after) {
            return bad_request("invalid_cursor",
                               "cursor must be a nextCursor of a previous page, unchanged");
        }
    }
    if (auto type = request.query_param("type")) {
        if (!is_merchant_event_type(*type)) {
            return bad_request("invalid_event_type",
                               "type must be one of invoice.paid, invoice.confirming, "
                               "invoice.underpaid, invoice.expired, invoice.late_payment, "
                               "invoice.refunded, invoice.failed, invoice.exception_resolved");
        }
        q.type = *type;
    }
    if (auto gte = request.query_param("createdGte")) {
        q.created_gte_ms = domain::events::parse_rfc3339_millis(*gte);
        if (!q.created_gte_ms) {
            return bad_request("invalid_created_gte",
                               "createdGte must be an RFC 3339 date-time such as "
                               "2026-11-21T22:00:00Z, from 1970 on");
        }
    }
    auto page = deps_.events->list(q);
    const bool more = page.size() > *limit;
    if (more) page.pop_back();

    rapidjson::StringBuffer b;
    rapidjson::Writer<rapidjson::StringBuffer> w(b);
    w.StartObject();
    w.Key("items");
    w.StartArray();
    for (const auto& e : page)
        w.RawValue(e.body.data(), e.body.size(), rapidjson::kObjectType);  // stored as sent
    w.EndArray();
    w.Key("hasMore");
    w.Bool(more);
    w.Key("nextCursor");
    if (more) {
        const auto cursor = encode_event_cursor(page.back().position);
        w.String(cursor.data(), static_cast<rapidjson::SizeType>(cursor.size()));
    } else {
        w.Null();
    }
    w.EndObject();
    return success_response(200, std::string_view(b.GetString(), b.GetSize()));
}

}  // namespace duepay::api
