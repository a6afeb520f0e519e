#include "api/http/webhooks_api.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <initializer_list>
#include <stdexcept>

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
constexpr long long kMaxSecretOverlap = 7LL * 86400;

ApiResponse endpoint_not_found() {
    return error_response(404, "webhook_endpoint_not_found",
                          "no such webhook endpoint for this key's mode");
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
                "invoice.exception_resolved, webhook.test");
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

// The body of a POST or PATCH as a JSON object of storable text (an empty body is {}), with only
// the members this route takes (ADR 0162): else the 400.
std::optional<ApiResponse> object_body(const RouteCall& call, rapidjson::Document& doc,
                                       std::initializer_list<std::string_view> members) {
    if (auto refused = parse_object_body(call.request.body, doc, kUtf8BodyOrEmpty)) return refused;
    return reject_unknown_members(doc, members);
}

// The page size of a listing, or the 400.
std::optional<ApiResponse> page_limit(const ApiRequest& request, std::size_t& limit) {
    const auto parsed = parse_limit_param(request);
    if (!parsed) return bad_request("invalid_limit", "limit must be an integer from 1 to 100");
    limit = *parsed;
    return std::nullopt;
}

}  // namespace

WebhooksApi::WebhooksApi(WebhooksApiDeps deps) : deps_(std::move(deps)) {
    required(deps_.endpoints, "WebhooksApiDeps.endpoints");
    if (!deps_.now_ms) throw std::invalid_argument("WebhooksApiDeps.now_ms is required");
}

void WebhooksApi::add_routes(RouteTable& routes) {
    const std::string collection(kEndpoints);
    const std::string item = collection + "/:id";
    RouteOptions own_query;
    own_query.own_query = true;
    routes.add("GET", collection, own_query, [this](const RouteCall& c) { return list(c); });
    routes.add("POST", collection, {}, [this](const RouteCall& c) { return create(c); });
    // Each route on one endpoint; an id that cannot be one of ours is not found, after the body
    // and the query are checked.
    using Step = ApiResponse (WebhooksApi::*)(const RouteCall&, const std::string&);
    auto on_endpoint = [this](Step step) {
        return [this, step](const RouteCall& c) { return (this->*step)(c, c.params[0]); };
    };
    routes.add("GET", item, {}, on_endpoint(&WebhooksApi::find));
    routes.add("PATCH", item, {}, on_endpoint(&WebhooksApi::update));
    routes.add("DELETE", item, {}, on_endpoint(&WebhooksApi::remove));
    routes.add("POST", item + "/rotate-secret", {}, on_endpoint(&WebhooksApi::rotate));
    routes.add("POST", item + "/test", {}, on_endpoint(&WebhooksApi::send_test));
    routes.add("GET", item + "/deliveries", own_query, on_endpoint(&WebhooksApi::deliveries));
    routes.add("POST", std::string(kDeliveries) + ":eventId/redeliver", own_query,
               [this](const RouteCall& c) { return redeliver(c); });
}

ApiResponse WebhooksApi::create(const RouteCall& call) {
    const Mode mode = call.key().mode;
    rapidjson::Document doc;
    if (auto r = object_body(call, doc, {"url", "events", "description", "mode"})) return *r;
    if (doc.HasMember("mode") &&
        !(doc["mode"].IsString() && domain::events::to_string(mode) == doc["mode"].GetString())) {
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
    e.project_id = call.key().project_id;
    e.mode = mode;
    e.secret = infra::webhooks::new_secret();
    return success_response(201, endpoint_json(deps_.endpoints->create(e), true));
}

ApiResponse WebhooksApi::list(const RouteCall& call) {
    const auto& request = call.request;
    if (auto r = reject_unknown_params(request, {"limit", "startingAfter"})) return *r;
    std::size_t limit = 0;
    if (auto r = page_limit(request, limit)) return *r;
    auto after = request.query_param("startingAfter");
    if (after && !infra::webhooks::is_endpoint_id(*after))
        return bad_request("invalid_cursor", "startingAfter must be an endpoint id");
    auto list = deps_.endpoints->list(call.key().project_id, call.key().mode, limit + 1, after);
    const bool more = list.size() > limit;
    if (more) list.pop_back();
    return success_response(200, endpoint_list_json(list, more));
}

ApiResponse WebhooksApi::redeliver(const RouteCall& call) {
    const auto& request = call.request;
    if (auto r = reject_unknown_params(request, {"endpoint"})) return *r;
    rapidjson::Document doc;
    if (auto r = object_body(call, doc, {})) return *r;
    const auto& event_id = call.params[0];
    const auto endpoint = request.query_param("endpoint");
    if (!endpoint || !infra::webhooks::is_endpoint_id(*endpoint)) {
        return bad_request("invalid_webhook_endpoint_id", "?endpoint=we_... is required");
    }
    const bool queued =
        infra::webhooks::is_event_id(event_id) &&
        deps_.endpoints->redeliver(call.key().project_id, call.key().mode, event_id, *endpoint);
    if (!queued) {
        return error_response(404, "webhook_event_not_found",
                              "no such event and endpoint for this key's mode");
    }
    rapidjson::StringBuffer b;
    Writer w(b);
    w.StartObject();
    put(w, "eventId", event_id);
    put(w, "endpointId", *endpoint);
    put(w, "state", "pending");
    w.EndObject();
    return success_response(202, std::string_view(b.GetString(), b.GetSize()));
}

ApiResponse WebhooksApi::find(const RouteCall& call, const std::string& id) {
    if (!infra::webhooks::is_endpoint_id(id)) return endpoint_not_found();
    auto e = deps_.endpoints->find(call.key().project_id, call.key().mode, id);
    if (!e) return endpoint_not_found();
    return success_response(200, endpoint_json(*e, false));
}

ApiResponse WebhooksApi::remove(const RouteCall& call, const std::string& id) {
    if (!infra::webhooks::is_endpoint_id(id)) return endpoint_not_found();
    if (!deps_.endpoints->remove(call.key().project_id, call.key().mode, id))
        return endpoint_not_found();
    return success_response(200, R"({"id":")" + id + R"(","deleted":true})");
}

ApiResponse WebhooksApi::update(const RouteCall& call, const std::string& id) {
    const Mode mode = call.key().mode;
    rapidjson::Document doc;
    if (auto r = object_body(call, doc, {"url", "events", "description", "status"})) return *r;
    if (!infra::webhooks::is_endpoint_id(id)) return endpoint_not_found();
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
    auto e = deps_.endpoints->update(call.key().project_id, mode, id, patch);
    if (!e) return endpoint_not_found();
    return success_response(200, endpoint_json(*e, false));
}

ApiResponse WebhooksApi::rotate(const RouteCall& call, const std::string& id) {
    rapidjson::Document doc;
    if (auto r = object_body(call, doc, {"expiresInSeconds"})) return *r;
    if (!infra::webhooks::is_endpoint_id(id)) return endpoint_not_found();
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
    auto e = deps_.endpoints->rotate_secret(call.key().project_id, call.key().mode, id, secret,
                                            std::chrono::seconds(overlap));
    if (!e) return endpoint_not_found();
    return success_response(200, endpoint_json(*e, true));
}

ApiResponse WebhooksApi::send_test(const RouteCall& call, const std::string& id) {
    rapidjson::Document doc;
    if (auto r = object_body(call, doc, {})) return *r;
    if (!infra::webhooks::is_endpoint_id(id)) return endpoint_not_found();
    const Mode mode = call.key().mode;
    const auto event_id = infra::webhooks::new_test_event_id();
    const auto event = dw::test_event(
        event_id, domain::events::format_rfc3339_millis_utc(deps_.now_ms()), mode, id);
    if (!deps_.endpoints->send_test(call.key().project_id, mode, id, event))
        return endpoint_not_found();
    rapidjson::StringBuffer b;
    Writer w(b);
    w.StartObject();
    put(w, "eventId", event.id);
    put(w, "endpointId", id);
    put(w, "type", event.type);
    w.EndObject();
    return success_response(202, std::string_view(b.GetString(), b.GetSize()));
}

ApiResponse WebhooksApi::deliveries(const RouteCall& call, const std::string& id) {
    const auto& request = call.request;
    if (auto r = reject_unknown_params(request, {"limit", "before"})) return *r;
    if (!infra::webhooks::is_endpoint_id(id)) return endpoint_not_found();
    std::size_t limit = 0;
    if (auto r = page_limit(request, limit)) return *r;
    std::optional<std::int64_t> before;
    if (auto text = request.query_param("before")) {
        if (text->empty() || text->size() > 18 ||
            text->find_first_not_of("0123456789") != std::string::npos) {
            return bad_request("invalid_cursor", "before must be an attempt id");
        }
        before = std::stoll(*text);
    }
    auto page =
        deps_.endpoints->attempts(call.key().project_id, call.key().mode, id, limit + 1, before);
    if (!page) return endpoint_not_found();
    const bool more = page->size() > limit;
    if (more) page->pop_back();
    return success_response(200, attempt_list_json(*page, more));
}

}  // namespace duepay::api
