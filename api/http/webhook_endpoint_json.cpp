#include "api/http/webhook_endpoint_json.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <optional>
#include <string_view>

#include "domain/events/event.hpp"

namespace duepay::api {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void put(Writer& w, const char* key, std::string_view value) {
    w.Key(key);
    w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

void put_opt(Writer& w, const char* key, const std::optional<std::string>& value) {
    w.Key(key);
    if (value) {
        w.String(value->data(), static_cast<rapidjson::SizeType>(value->size()));
    } else {
        w.Null();
    }
}

void write_endpoint(Writer& w, const ports::WebhookEndpoint& e, bool with_secret) {
    w.StartObject();
    put(w, "id", e.id);
    put(w, "url", e.url);
    w.Key("events");
    w.StartArray();
    for (const auto& t : e.events) w.String(t.data(), static_cast<rapidjson::SizeType>(t.size()));
    w.EndArray();
    put(w, "mode", domain::events::to_string(e.mode));
    put(w, "status", e.status);
    put_opt(w, "disabledReason", e.disabled_reason);
    put_opt(w, "failingSince", e.failing_since);
    put_opt(w, "description", e.description);
    put(w, "createdAt", e.created_at);
    put(w, "updatedAt", e.updated_at);
    put_opt(w, "previousSecretExpiresAt", e.previous_secret_expires_at);
    if (with_secret) put(w, "secret", e.secret);
    w.EndObject();
}

}  // namespace

std::string endpoint_json(const ports::WebhookEndpoint& endpoint, bool with_secret) {
    rapidjson::StringBuffer b;
    Writer w(b);
    write_endpoint(w, endpoint, with_secret);
    return {b.GetString(), b.GetSize()};
}

std::string endpoint_list_json(const std::vector<ports::WebhookEndpoint>& endpoints,
                               bool has_more) {
    rapidjson::StringBuffer b;
    Writer w(b);
    w.StartObject();
    w.Key("items");
    w.StartArray();
    for (const auto& e : endpoints) write_endpoint(w, e, false);
    w.EndArray();
    w.Key("hasMore");
    w.Bool(has_more);
    w.EndObject();
    return {b.GetString(), b.GetSize()};
}

std::string attempt_list_json(const std::vector<ports::WebhookAttempt>& attempts, bool has_more) {
    rapidjson::StringBuffer b;
    Writer w(b);
    w.StartObject();
    w.Key("items");
    w.StartArray();
    for (const auto& a : attempts) {
        w.StartObject();
        w.Key("id");
        w.Int64(a.id);
        put(w, "eventId", a.event_id);
        put(w, "type", a.event_type);
        w.Key("attempt");
        w.Int(a.attempt);
        put(w, "attemptedAt", a.attempted_at);
        w.Key("responseStatus");
        if (a.response_status) {
            w.Int(*a.response_status);
        } else {
            w.Null();
        }
        w.Key("latencyMs");
        w.Int(a.latency_ms);
        put_opt(w, "error", a.error);
        put_opt(w, "nextRetryAt", a.next_retry_at);
        put_opt(w, "responseExcerpt", a.response_excerpt);
        w.EndObject();
    }
    w.EndArray();
    w.Key("hasMore");
    w.Bool(has_more);
    w.EndObject();
    return {b.GetString(), b.GetSize()};
}

}  // namespace duepay::api
