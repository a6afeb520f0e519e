#include "infra/webhooks/endpoints.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "domain/hex.hpp"
#include "domain/webhooks/endpoint_url.hpp"
#include "infra/random/random.hpp"
#include "infra/webhooks/address_guard.hpp"

namespace duepay::infra::webhooks {
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

bool is_prefixed_hex(std::string_view id, std::string_view prefix, std::size_t digits) {
    return id.size() == prefix.size() + digits && id.starts_with(prefix) &&
           id.substr(prefix.size()).find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

}  // namespace

namespace {

std::optional<domain::Error> check_url(const std::string& url, bool insecure) {
    auto parsed = domain::webhooks::parse_endpoint_url(url, insecure);
    if (!parsed) return parsed.error();
    return check_host(parsed->host, insecure);
}

}  // namespace

std::optional<domain::Error> check_endpoint_url(const std::string& url, bool allow_insecure,
                                                ports::Mode mode) {
    const bool test_mode = mode == ports::Mode::test;
    auto refused = check_url(url, allow_insecure && test_mode);
    // Refused for a live endpoint although a test-mode one would pass: say so.
    if (refused && allow_insecure && !test_mode && !check_url(url, true)) {
        refused->message +=
            " (http:// and loopback URLs are allowed for test-mode endpoints in the dev stack "
            "only)";
    }
    return refused;
}

std::string new_endpoint_id() {
    return "we_" + domain::to_hex(random::random_bytes<12>()).substr(2);
}

std::string new_test_event_id() {
    return "evt_" + domain::to_hex(random::random_bytes<24>()).substr(2);
}

bool is_endpoint_id(std::string_view id) { return is_prefixed_hex(id, "we_", 24); }

bool is_event_id(std::string_view id) { return is_prefixed_hex(id, "evt_", 48); }

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
        w.EndObject();
    }
    w.EndArray();
    w.Key("hasMore");
    w.Bool(has_more);
    w.EndObject();
    return {b.GetString(), b.GetSize()};
}

}  // namespace duepay::infra::webhooks
