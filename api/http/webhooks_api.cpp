#include "api/http/webhooks_api.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <iostream>

#include "api/http/charges_api.hpp"
#include "api/http/envelope.hpp"
#include "api/http/request_fields.hpp"
#include "api/http/webhook_endpoint_json.hpp"
#include "domain/events/event.hpp"
#include "domain/hex.hpp"
#include "domain/webhooks/endpoint_url.hpp"
#include "domain/webhooks/webhook_event.hpp"
#include "infra/random/random.hpp"
#include "infra/webhooks/endpoints.hpp"
#include "infra/webhooks/signing.hpp"

namespace duepay::api {
namespace {

namespace dw = domain::webhooks;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

constexpr std::string_view kEndpoints = "/v1/webhook-endpoints";
constexpr std::string_view kDeliveries = "/v1/webhook-deliveries/";
constexpr std::size_t kMaxDescription = 255;
constexpr long long kDefaultSecretOverlap = 86400;
constexpr long long kMaxSecretOverlap = 7 * 86400;

ApiResponse endpoint_not_found() {
    return error_response(404, "webhook_endpoint_not_found",
                          "no such webhook endpoint for this key's mode");
}
ApiResponse method_not_allowed(const char* allowed) {
    auto r = error_response(405, "method_not_allowed", "method not allowed");
    r.headers["allow"] = allowed;
    return r;
}

void put(Writer& w, const char* key, std::string_view value) {
    w.Key(key);
    w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

// The URL rules and the address check (registration half of docs/webhooks.md "Endpoint URLs")
// for an endpoint of the key's mode: the dev relaxation is for test-mode endpoints only.
std::optional<ApiResponse> check_url(const rapidjson::Value& v, bool allow_insecure, Mode mode,
                                     std::string& out) {
    if (!v.IsString()) return bad_request("invalid_webhook_url", "url must be a string");
    out.assign(v.GetString(), v.GetStringLength());
    if (auto refused = infra::webhooks::check_endpoint_url(out, allow_insecure, mode)) {
        return bad_request(refused->code, refused->message);
    }
    return std::nullopt;
}

std::optional<ApiResponse> check_events(const rapidjson::Value& v, std::vector<std::string>& out) {
    if (!v.IsArray() || v.Empty()) {
        return bad_request("invalid_webhook_events",
                           "events must be a non-empty array of event types");
    }
    for (const auto& item : v.GetArray()) {
        if (!item.IsString() || !dw::is_webhook_event_type(
                                    std::string_view(item.GetString(), item.GetStringLength()))) {
            return bad_request(
                "invalid_webhook_events",
                "unknown event type; known: invoice.paid, invoice.confirming, invoice.underpaid, "
                "invoice.expired, invoice.late_payment, invoice.refunded, invoice.failed, "
                "webhook.test");
        }
        std::string t(item.GetString(), item.GetStringLength());
        if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(std::move(t));
    }
    return std::nullopt;
}

std::optional<ApiResponse> check_description(const rapidjson::Value& v,
                                             std::optional<std::string>& out) {
    if (v.IsNull()) {
        out.reset();
        return std::nullopt;
    }
    if (!v.IsString() || v.GetStringLength() > kMaxDescription ||
        std::string_view(v.GetString(), v.GetStringLength()).find('\0') != std::string_view::npos) {
        return bad_request("invalid_description",
                           "description must be a string of at most 255 characters");
    }
    out = std::string(v.GetString(), v.GetStringLength());
    return std::nullopt;
}

struct Route {
    enum Kind { none, collection, item, rotate, test, deliveries, redeliver } kind = none;
    std::string id;  // endpoint id, or event id for redeliver
};

Route route_of(std::string_view path) {
    Route r;
    if (path == kEndpoints) {
        r.kind = Route::collection;
        return r;
    }
    if (path.starts_with(kDeliveries)) {
        auto rest = path.substr(kDeliveries.size());
        constexpr std::string_view kRedeliver = "/redeliver";
        if (rest.ends_with(kRedeliver)) {
            rest.remove_suffix(kRedeliver.size());
            if (!rest.empty() && rest.find('/') == std::string_view::npos) {
                r.kind = Route::redeliver;
                r.id = std::string(rest);
            }
        }
        return r;
    }
    if (!path.starts_with(kEndpoints) || path.size() <= kEndpoints.size() + 1 ||
        path[kEndpoints.size()] != '/') {
        return r;
    }
    auto rest = path.substr(kEndpoints.size() + 1);
    const auto slash = rest.find('/');
    r.id = std::string(rest.substr(0, slash));
    if (r.id.empty()) return r;
    if (slash == std::string_view::npos) {
        r.kind = Route::item;
        return r;
    }
    const auto tail = rest.substr(slash + 1);
    if (tail == "rotate-secret") r.kind = Route::rotate;
    if (tail == "test") r.kind = Route::test;
    if (tail == "deliveries") r.kind = Route::deliveries;
    return r;
}

// What each route accepts (ADR 0162): any other body member or query parameter is 400
// unknown_field, never ignored.
std::optional<ApiResponse> reject_unknown(const Route& route, const std::string& m,
                                          const ApiRequest& request, const rapidjson::Value& doc) {
    switch (route.kind) {
        case Route::collection:
            if (m == "GET") return reject_unknown_params(request, {"limit", "startingAfter"});
            if (auto r = reject_unknown_params(request, {})) return r;
            return reject_unknown_members(doc, {"url", "events", "description", "mode"});
        case Route::item:
            if (auto r = reject_unknown_params(request, {})) return r;
            return reject_unknown_members(doc, {"url", "events", "description", "status"});
        case Route::rotate:
            if (auto r = reject_unknown_params(request, {})) return r;
            return reject_unknown_members(doc, {"expiresInSeconds"});
        case Route::deliveries:
            return reject_unknown_params(request, {"limit", "before"});
        case Route::redeliver:
            if (auto r = reject_unknown_params(request, {"endpoint"})) return r;
            return reject_unknown_members(doc, {});
        case Route::test:
            if (auto r = reject_unknown_params(request, {})) return r;
            return reject_unknown_members(doc, {});
        case Route::none:
            break;
    }
    return std::nullopt;
}

}  // namespace

WebhooksApi::WebhooksApi(WebhooksApiDeps deps) : deps_(std::move(deps)), auth_(*deps_.keys) {}

bool WebhooksApi::owns(const std::string& path) {
    return path == kEndpoints || path.starts_with(std::string(kEndpoints) + "/") ||
           path.starts_with(kDeliveries);
}

ApiResponse WebhooksApi::handle(const ApiRequest& request) {
    const auto route = route_of(request.path);
    const auto& m = request.method;
    switch (route.kind) {
        case Route::none:
            return error_response(404, "route_not_found", "no such route");
        case Route::collection:
            if (m != "GET" && m != "POST") return method_not_allowed("GET, POST");
            break;
        case Route::item:
            if (m != "GET" && m != "PATCH" && m != "DELETE")
                return method_not_allowed("GET, PATCH, DELETE");
            break;
        case Route::deliveries:
            if (m != "GET") return method_not_allowed("GET");
            break;
        case Route::rotate:
        case Route::test:
        case Route::redeliver:
            if (m != "POST") return method_not_allowed("POST");
            break;
    }
    auto owner = auth_.authenticate(request);
    if (!owner) return error_response(401, "invalid_api_key", "invalid API key");
    const ProjectId& project = owner->project_id;
    const Mode mode = owner->mode;
    auto& store = *deps_.endpoints;

    // Text lands in Postgres: invalid UTF-8 is a 400 here, never a database error.
    rapidjson::Document doc;
    if (auto refused = parse_object_body(m == "POST" || m == "PATCH" ? request.body : std::string(),
                                         doc, kUtf8BodyOrEmpty)) {
        return std::move(*refused);
    }
    if (auto unknown = reject_unknown(route, m, request, doc)) return std::move(*unknown);

    if (route.kind == Route::collection && m == "POST") {
        if (doc.HasMember("mode") && !(doc["mode"].IsString() && domain::events::to_string(mode) ==
                                                                     doc["mode"].GetString())) {
            return bad_request("key_mode_mismatch",
                               mode == Mode::test ? "a test key can only register test endpoints"
                                                  : "a live key can only register live endpoints");
        }
        WebhookEndpoint e;
        if (!doc.HasMember("url")) return bad_request("invalid_webhook_url", "url is required");
        if (auto r = check_url(doc["url"], deps_.allow_insecure, mode, e.url)) return *r;
        if (doc.HasMember("events") && !doc["events"].IsNull()) {
            if (auto r = check_events(doc["events"], e.events)) return *r;
        } else {
            for (auto t : dw::kWebhookEventTypes) e.events.emplace_back(t);
        }
        if (doc.HasMember("description")) {
            if (auto r = check_description(doc["description"], e.description)) return *r;
        }
        e.id = infra::webhooks::new_endpoint_id();
        e.project_id = project;
        e.mode = mode;
        e.secret = infra::webhooks::new_secret();
        return success_response(201, endpoint_json(store.create(e), true));
    }
    if (route.kind == Route::collection) {
        const auto limit = parse_limit_param(request);
        if (!limit) return bad_request("invalid_limit", "limit must be an integer from 1 to 100");
        auto after = request.query_param("startingAfter");
        if (after && !infra::webhooks::is_endpoint_id(*after))
            return bad_request("invalid_cursor", "startingAfter must be an endpoint id");
        auto list = store.list(project, mode, *limit + 1, after);
        const bool more = list.size() > *limit;
        if (more) list.pop_back();
        return success_response(200, endpoint_list_json(list, more));
    }

    if (route.kind == Route::redeliver) {
        const auto endpoint = request.query_param("endpoint");
        if (!endpoint || !infra::webhooks::is_endpoint_id(*endpoint)) {
            return bad_request("invalid_webhook_endpoint_id", "?endpoint=we_... is required");
        }
        const bool queued = infra::webhooks::is_event_id(route.id) &&
                            store.redeliver(project, mode, route.id, *endpoint);
        if (!queued) {
            return error_response(404, "webhook_event_not_found",
                                  "no such event and endpoint for this key's mode");
        }
        rapidjson::StringBuffer b;
        Writer w(b);
        w.StartObject();
        put(w, "eventId", route.id);
        put(w, "endpointId", *endpoint);
        put(w, "state", "pending");
        w.EndObject();
        return success_response(202, std::string_view(b.GetString(), b.GetSize()));
    }

    if (!infra::webhooks::is_endpoint_id(route.id)) return endpoint_not_found();
    const std::string& id = route.id;

    if (route.kind == Route::item && m == "GET") {
        auto e = store.find(project, mode, id);
        if (!e) return endpoint_not_found();
        return success_response(200, endpoint_json(*e, false));
    }
    if (route.kind == Route::item && m == "DELETE") {
        if (!store.remove(project, mode, id)) return endpoint_not_found();
        return success_response(200, R"({"id":")" + id + R"(","deleted":true})");
    }
    if (route.kind == Route::item) {  // PATCH
        WebhookEndpointPatch patch;
        if (doc.HasMember("url")) {
            std::string url;
            if (auto r = check_url(doc["url"], deps_.allow_insecure, mode, url)) return *r;
            patch.url = url;
        }
        if (doc.HasMember("events")) {
            std::vector<std::string> events;
            if (auto r = check_events(doc["events"], events)) return *r;
            patch.events = events;
        }
        if (doc.HasMember("description")) {
            std::optional<std::string> description;
            if (auto r = check_description(doc["description"], description)) return *r;
            patch.description = description;
        }
        if (doc.HasMember("status")) {
            const auto& s = doc["status"];
            const std::string_view status = s.IsString() ? s.GetString() : "";
            if (status != "enabled" && status != "disabled") {
                return bad_request("invalid_webhook_status", "status must be enabled or disabled");
            }
            patch.status = std::string(status);
        }
        auto e = store.update(project, mode, id, patch);
        if (!e) return endpoint_not_found();
        return success_response(200, endpoint_json(*e, false));
    }
    if (route.kind == Route::rotate) {
        long long overlap = kDefaultSecretOverlap;
        if (doc.HasMember("expiresInSeconds") && !doc["expiresInSeconds"].IsNull()) {
            const auto& v = doc["expiresInSeconds"];
            if (!v.IsInt64() || v.GetInt64() < 0 || v.GetInt64() > kMaxSecretOverlap) {
                return bad_request("invalid_expires_in",
                                   "expiresInSeconds must be an integer from 0 to 604800");
            }
            overlap = v.GetInt64();
        }
        const auto secret = infra::webhooks::new_secret();
        auto e = store.rotate_secret(project, mode, id, secret, std::chrono::seconds(overlap));
        if (!e) return endpoint_not_found();
        return success_response(200, endpoint_json(*e, true));
    }
    if (route.kind == Route::test) {
        const auto event_id = infra::webhooks::new_test_event_id();
        const auto event = dw::test_event(
            event_id, domain::events::format_rfc3339_millis_utc(deps_.now_ms()), mode, id);
        if (!store.send_test(project, mode, id, event)) return endpoint_not_found();
        rapidjson::StringBuffer b;
        Writer w(b);
        w.StartObject();
        put(w, "eventId", event.id);
        put(w, "endpointId", id);
        put(w, "type", event.type);
        w.EndObject();
        return success_response(202, std::string_view(b.GetString(), b.GetSize()));
    }
    // deliveries
    const auto limit = parse_limit_param(request);
    if (!limit) return bad_request("invalid_limit", "limit must be an integer from 1 to 100");
    std::optional<std::int64_t> before;
    if (auto text = request.query_param("before")) {
        if (text->empty() || text->size() > 18 ||
            text->find_first_not_of("0123456789") != std::string::npos) {
            return bad_request("invalid_cursor", "before must be an attempt id");
        }
        before = std::stoll(*text);
    }
    auto page = store.attempts(project, mode, id, *limit + 1, before);
    if (!page) return endpoint_not_found();
    const bool more = page->size() > *limit;
    if (more) page->pop_back();
    return success_response(200, attempt_list_json(*page, more));
}

}  // namespace duepay::api
