#include "api/dashboard/session_auth.hpp"

#include <algorithm>

#include "api/http/envelope.hpp"
#include "domain/hex.hpp"
#include "infra/random/key_material.hpp"
#include "infra/random/random.hpp"

namespace duepay::api::dashboard {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

bool is_token(std::string_view s) {
    return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

std::string random_hex32() { return domain::to_hex(infra::random::random_bytes<32>()).substr(2); }

bool equal_secret(std::string_view a, std::string_view b) {
    const auto ha = infra::random::sha256(a);
    const auto hb = infra::random::sha256(b);
    return infra::random::constant_time_equal(ha, hb);
}

}  // namespace

bool secure_cookies(std::string_view origin) {
    if (origin.rfind("http://", 0) != 0) return true;
    auto host = origin.substr(7);
    if (host.rfind("[::1]", 0) == 0) return false;
    host = host.substr(0, host.find(':'));
    return !(host == "localhost" || host == "127.0.0.1" || host.rfind("127.", 0) == 0);
}

std::optional<std::string> cookie_value(std::string_view header, std::string_view name) {
    while (!header.empty()) {
        const auto semi = header.find(';');
        auto pair = trim(header.substr(0, semi));
        const auto eq = pair.find('=');
        if (eq != std::string_view::npos && trim(pair.substr(0, eq)) == name) {
            auto value = trim(pair.substr(eq + 1));
            if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
                value = value.substr(1, value.size() - 2);
            }
            return std::string(value);
        }
        if (semi == std::string_view::npos) break;
        header.remove_prefix(semi + 1);
    }
    return std::nullopt;
}

std::optional<std::string> presented_csrf(const ApiRequest& request) {
    if (auto h = request.header("x-csrf-token")) return h;
    if (!is_form_media_type(request)) return std::nullopt;
    for (auto& [name, value] : form_params(request.body)) {
        if (name == "csrf") return std::move(value);
    }
    return std::nullopt;
}

DashboardSessions::DashboardSessions(ports::DashboardStore& store, SessionSettings settings)
    : store_(store), settings_(std::move(settings)), secure_(secure_cookies(settings_.origin)) {}

std::optional<SessionUser> DashboardSessions::authenticate(const ApiRequest& request) {
    auto header = request.header("cookie");
    if (!header) return std::nullopt;
    auto token = cookie_value(*header, kSessionCookie);
    if (!token || !is_token(*token)) return std::nullopt;
    auto session = store_.touch_session(infra::random::sha256(*token), settings_.limits);
    if (!session) return std::nullopt;
    return SessionUser{std::move(session->id), std::move(session->address),
                       std::move(session->csrf)};
}

ApiResponse DashboardSessions::unauthenticated(const ApiRequest& request) const {
    if (request.method == "GET" || request.method == "HEAD") {
        ApiResponse r;
        r.status = 303;
        r.headers["location"] = "/sign-in";
        r.headers["content-type"] = "text/plain; charset=utf-8";
        r.body = "sign in first: /sign-in\n";
        return r;
    }
    return error_response(401, "session_required", "sign in to the dashboard first");
}

bool DashboardSessions::same_origin(const ApiRequest& request) const {
    if (auto origin = request.header("origin")) return *origin == settings_.origin;
    if (auto site = request.header("sec-fetch-site")) return *site == "same-origin";
    // Neither header: not a browser's cross-site request (browsers send Origin on every POST).
    return true;
}

std::optional<ApiResponse> DashboardSessions::forged(const ApiRequest& request,
                                                     const SessionUser& user) const {
    if (!same_origin(request)) {
        return error_response(403, "cross_site_request",
                              "this request did not come from the dashboard's own pages");
    }
    auto csrf = presented_csrf(request);
    if (!csrf || !equal_secret(*csrf, user.csrf)) {
        return error_response(403, "invalid_csrf_token",
                              "the form is stale or did not come from the dashboard; reload the "
                              "page and try again");
    }
    return std::nullopt;
}

std::string DashboardSessions::cookie(std::string_view value, std::string_view max_age) const {
    std::string c(kSessionCookie);
    c += "=";
    c += value;
    c += "; Path=/; HttpOnly; SameSite=Lax; Max-Age=";
    c += max_age;
    if (secure_) c += "; Secure";
    return c;
}

std::string DashboardSessions::open(const std::string& address) {
    const auto token = random_hex32();
    store_.open_session(infra::random::sha256(token), address, random_hex32(), settings_.limits);
    return cookie(token, std::to_string(settings_.limits.absolute_seconds));
}

std::string DashboardSessions::clear_cookie() const { return cookie("", "0"); }

}  // namespace duepay::api::dashboard
