#include "api/http/account_api.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <array>
#include <stdexcept>
#include <string_view>
#include <variant>

#include "api/http/envelope.hpp"
#include "api/http/request_fields.hpp"
#include "domain/accounts/project_settings.hpp"
#include "domain/events/json_writer.hpp"
#include "domain/evm/address.hpp"
#include "domain/ports/signer.hpp"
#include "domain/text.hpp"

namespace duepay::api {
namespace {

namespace acc = domain::accounts;
using domain::json::opt_str;
using domain::json::str;
using domain::json::Writer;

constexpr std::string_view kRoll = "/v1/api-keys/roll";
constexpr std::string_view kProject = "/v1/project";
constexpr std::string_view kChallenge = "/v1/payout-wallet/challenge";
constexpr std::string_view kVerify = "/v1/payout-wallet/verify";
constexpr long long kMaxKeyOverlap = 7LL * 86400;
constexpr int kChallengeTtlSeconds = 600;

// A rejection of the shared account rules (infra/accounts, domain/accounts) as an HTTP answer:
// malformed input 400, a challenge in the wrong state 409, a proof that does not hold 422.
// Each code written out, so api_error_codes_test finds it.
ApiResponse rejection(const domain::Error& e) {
    const auto& c = e.code;
    const auto& text = e.message;
    if (c == "invalid_signature") return bad_request("invalid_signature", text);
    if (c == "challenge_not_found") return error_response(409, "challenge_not_found", text);
    if (c == "challenge_used") return error_response(409, "challenge_used", text);
    if (c == "challenge_expired") return error_response(409, "challenge_expired", text);
    if (c == "signer_mismatch") return error_response(422, "signer_mismatch", text);
    if (c == "current_wallet_signature_required") {
        return error_response(422, "current_wallet_signature_required", text);
    }
    if (c == "current_wallet_signer_mismatch") {
        return error_response(422, "current_wallet_signer_mismatch", text);
    }
    throw std::logic_error("unmapped account rejection " + c);  // a bug: 500, logged
}

std::string text_of(const rapidjson::StringBuffer& b) { return {b.GetString(), b.GetSize()}; }

std::string project_json(const ProjectView& p) {
    rapidjson::StringBuffer b;
    Writer w(b);
    w.StartObject();
    str(w, "projectId", p.id.value);
    str(w, "name", p.name);
    opt_str(w, "logoUrl", p.logo_url);
    opt_str(w, "accentColor", p.accent_color);
    w.Key("paymentWindowSeconds");
    w.Int(p.payment_window_seconds);
    opt_str(w, "payoutAddress", p.payout_address);
    opt_str(w, "payoutVerifiedAt", p.payout_verified_at);
    str(w, "plan", p.plan);
    str(w, "createdAt", p.created_at);
    w.EndObject();
    return text_of(b);
}

// The body as a JSON object whose strings are all storable text (ADR 0043), bounded (ADR 0202);
// an empty body is {}.
std::optional<ApiResponse> parse_body(const std::string& body, rapidjson::Document& doc) {
    return parse_object_body(body, doc, kStorableBodyOrEmpty);
}

// The string, or "" for any other JSON type (which every field rule refuses).
std::string_view string_or_empty(const rapidjson::Value& v) {
    return v.IsString() ? std::string_view(v.GetString(), v.GetStringLength()) : std::string_view();
}

std::optional<std::string> string_member(const rapidjson::Document& doc, const char* name) {
    if (!doc.HasMember(name) || !doc[name].IsString()) return std::nullopt;
    return std::string(doc[name].GetString(), doc[name].GetStringLength());
}

// The address of a wallet body as EIP-55, or the 400.
std::variant<std::string, ApiResponse> wallet_address(const rapidjson::Document& doc) {
    auto text = string_member(doc, "address");
    if (!text) return bad_request("invalid_address", "address is required: 0x + 40 hex digits");
    auto parsed = domain::evm::parse_address(*text);
    if (!parsed) return bad_request(parsed.error().code, parsed.error().message);
    return domain::evm::to_checksum(*parsed);
}

}  // namespace

std::optional<ApiResponse> parse_account_body(const std::string& body, rapidjson::Document& doc) {
    return parse_body(body, doc);
}

AccountApi::AccountApi(AccountApiDeps deps) : deps_(deps) {
    required(deps_.accounts, "AccountApiDeps.accounts");
    required(deps_.key_cache, "AccountApiDeps.key_cache");
}

void AccountApi::add_routes(RouteTable& routes) {
    // Every account route but the read takes a JSON object body (an empty body is {}).
    using Step = ApiResponse (AccountApi::*)(const rapidjson::Document&, const KeyOwner&);
    auto with_body = [this](Step step) {
        return [this, step](const RouteCall& call) {
            rapidjson::Document body;
            if (auto r = parse_body(call.request.body, body)) return std::move(*r);
            return (this->*step)(body, call.key());
        };
    };
    routes.add("POST", std::string(kRoll), {}, with_body(&AccountApi::roll));
    routes.add("GET", std::string(kProject), {}, [this](const RouteCall& call) {
        // Read fresh, not from the key cache: a change shows at once.
        auto p = deps_.accounts->find_project(call.key().project_id);
        if (!p) return error_response(401, "invalid_api_key", "invalid API key");
        return success_response(200, project_json(*p));
    });
    routes.add("PATCH", std::string(kProject), {},
               [update = with_body(&AccountApi::update_project)](const RouteCall& call) {
                   // A PATCH says what to change: no body at all is a client mistake, not a no-op.
                   if (call.request.body.empty()) {
                       return bad_request(
                           "invalid_json",
                           "request body is required: a JSON object of the fields to change");
                   }
                   return update(call);
               });
    routes.add("POST", std::string(kChallenge), {}, with_body(&AccountApi::challenge));
    routes.add("POST", std::string(kVerify), {}, with_body(&AccountApi::verify));
}

ApiResponse AccountApi::roll(const rapidjson::Document& body, const KeyOwner& owner) {
    if (auto r = reject_unknown_members(body, {"expiresInSeconds"})) return *r;
    if (!body.HasMember("expiresInSeconds") || !body["expiresInSeconds"].IsInt64() ||
        body["expiresInSeconds"].GetInt64() < 0 ||
        body["expiresInSeconds"].GetInt64() > kMaxKeyOverlap) {
        return bad_request("invalid_expires_in",
                           "expiresInSeconds is required: an integer from 0 to 604800, how long "
                           "the rolled key keeps working");
    }
    const int overlap = static_cast<int>(body["expiresInSeconds"].GetInt64());
    auto k = deps_.accounts->roll_key(owner.key_id, overlap);
    // The rolled key now has an expiry: this process's cache learns it at once.
    deps_.key_cache->forget_project(owner.project_id);
    if (!k) {
        return error_response(409, "key_already_rolled",
                              "this key was already rolled; use the key that replaced it");
    }
    rapidjson::StringBuffer b;
    Writer w(b);
    w.StartObject();
    str(w, "keyId", k->key_id);
    str(w, "key", k->secret);
    str(w, "projectId", k->project_id.value);
    str(w, "mode", domain::events::to_string(k->mode));
    str(w, "prefix", k->prefix);
    str(w, "createdAt", k->created_at);
    w.Key("previousKey");
    w.StartObject();
    str(w, "keyId", k->previous_key_id);
    opt_str(w, "expiresAt", k->previous_expires_at);
    w.EndObject();
    w.EndObject();
    return success_response(201, text_of(b));
}

ApiResponse AccountApi::update_project(const rapidjson::Document& body, const KeyOwner& owner) {
    for (const char* field :
         {"payoutAddress", "payoutVerifiedAt", "plan", "projectId", "createdAt"}) {
        if (body.HasMember(field)) {
            return bad_request("read_only_field",
                               std::string(field) +
                                   " is read-only (the payout wallet is set with POST "
                                   "/v1/payout-wallet/verify; the plan by the operator)");
        }
    }
    if (auto r = reject_unknown_members(
            body, {"name", "logoUrl", "accentColor", "paymentWindowSeconds"})) {
        return *r;
    }
    ProjectUpdate c;
    if (body.HasMember("name")) {
        auto name = acc::check_project_name(string_or_empty(body["name"]));
        if (!name) return bad_request("invalid_name", name.error().message);
        c.name = *name;
    }
    // null clears the logo or the colour (the store clears on an empty string).
    if (body.HasMember("logoUrl")) {
        const auto& v = body["logoUrl"];
        auto url = v.IsNull() ? domain::Result<std::string>(std::string())
                              : acc::check_logo_url(string_or_empty(v), false);
        if (!url) return bad_request("invalid_logo_url", url.error().message);
        c.logo_url = *url;
    }
    if (body.HasMember("accentColor")) {
        const auto& v = body["accentColor"];
        auto color = v.IsNull() ? domain::Result<std::string>(std::string())
                                : acc::check_accent_color(string_or_empty(v));
        if (!color) return bad_request("invalid_accent_color", color.error().message);
        c.accent_color = *color;
    }
    if (body.HasMember("paymentWindowSeconds")) {
        const auto& v = body["paymentWindowSeconds"];
        auto window = acc::check_payment_window(v.IsInt64() ? v.GetInt64() : 0);
        if (!window) return bad_request("invalid_payment_window", window.error().message);
        c.payment_window_seconds = *window;
    }
    auto p = deps_.accounts->update_project(owner.project_id, c, owner.key_id);
    // The next request of this project on this process sees the new settings (branding).
    deps_.key_cache->forget_project(owner.project_id);
    if (!p) return error_response(401, "invalid_api_key", "invalid API key");
    return success_response(200, project_json(*p));
}

ApiResponse wallet_challenge_response(const rapidjson::Document& body,
                                      const WalletChallengeIssuer& issue) {
    if (auto r = reject_unknown_members(body, {"address"})) return *r;
    auto address = wallet_address(body);
    if (auto* r = std::get_if<ApiResponse>(&address)) return *r;
    const auto& a = std::get<std::string>(address);
    const auto c = issue(a, kChallengeTtlSeconds);
    rapidjson::StringBuffer b;
    Writer w(b);
    w.StartObject();
    str(w, "challengeId", c.id);
    str(w, "address", c.address);
    str(w, "nonce", c.nonce);
    str(w, "expiresAt", c.expires_at);
    str(w, "message", c.message);
    opt_str(w, "payoutAddress", c.payout_address);
    w.Key("currentWalletSignatureRequired");
    w.Bool(c.payout_address.has_value() && *c.payout_address != a);
    w.EndObject();
    return success_response(201, text_of(b));
}

ApiResponse wallet_verify_response(const rapidjson::Document& body, const ProjectId& project,
                                   const WalletProofChecker& verify) {
    if (auto r = reject_unknown_members(
            body, {"address", "signature", "nonce", "currentWalletSignature"})) {
        return *r;
    }
    auto address = wallet_address(body);
    if (auto* r = std::get_if<ApiResponse>(&address)) return *r;
    WalletProofRequest v;
    v.project_id = project;
    v.address = std::get<std::string>(address);
    auto signature = string_member(body, "signature");
    if (!signature) {
        return bad_request("invalid_signature", "signature is required: 0x + 130 hex digits");
    }
    v.signature = *signature;
    if (body.HasMember("nonce")) {
        v.nonce = string_member(body, "nonce");
        if (!v.nonce) return bad_request("invalid_nonce", "nonce must be the challenge's nonce");
    }
    if (body.HasMember("currentWalletSignature")) {
        v.current_signature = string_member(body, "currentWalletSignature");
        if (!v.current_signature) {
            return bad_request("invalid_signature",
                               "currentWalletSignature must be 0x + 130 hex digits");
        }
    }
    // Malformed signatures are refused before any query.
    for (const auto* text : {&v.signature, v.current_signature ? &*v.current_signature : nullptr}) {
        if (text == nullptr) continue;
        if (auto s = domain::evm::parse_signature(*text); !s) {
            return bad_request("invalid_signature", s.error().message);
        }
    }
    auto p = verify(v);
    if (!p) return rejection(p.error());
    return success_response(200, project_json(*p));
}

ApiResponse AccountApi::challenge(const rapidjson::Document& body, const KeyOwner& owner) {
    return wallet_challenge_response(body, [&](const std::string& address, int ttl) {
        return deps_.accounts->issue_wallet_challenge(owner.project_id, address, ttl);
    });
}

ApiResponse AccountApi::verify(const rapidjson::Document& body, const KeyOwner& owner) {
    auto r = wallet_verify_response(body, owner.project_id, [&](const WalletProofRequest& v) {
        return deps_.accounts->verify_wallet(v, owner.key_id);
    });
    // The payout wallet the keys carry.
    if (r.status == 200) deps_.key_cache->forget_project(owner.project_id);
    return r;
}

}  // namespace duepay::api
