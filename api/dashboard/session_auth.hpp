// The dashboard's sessions as the HTTP pipeline asks about them (docs/dashboard.md, Sessions and
// CSRF):
//   - the cookie `duepay_session` holds a random 256-bit token (64 hex); only its SHA-256 is
//     stored, and a session ends on sign-out, after `idle_seconds` without a request, or
//     `absolute_seconds` after sign-in, whichever comes first;
//   - the cookie is HttpOnly, SameSite=Lax, Path=/, and Secure unless the dashboard is plain http
//     on a loopback address (a browser drops a Secure cookie there);
//   - a state-changing request must carry the session's CSRF token (the form field `csrf` or the
//     header `x-csrf-token`) and come from our origin (Origin, else Sec-Fetch-Site); anything
//     else is 403 and runs nothing.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/http/router.hpp"
#include "domain/ports/dashboard.hpp"

namespace duepay::api::dashboard {

inline constexpr std::string_view kSessionCookie = "duepay_session";

struct SessionSettings {
    std::string origin = "http://127.0.0.1:8082";  // scheme://host[:port], as browsers send it
    ports::SessionLimits limits;
};

// Whether a cookie for `origin` must be Secure: every origin but plain http on a loopback host.
bool secure_cookies(std::string_view origin);

// The value of cookie `name` in a Cookie header, or nullopt.
std::optional<std::string> cookie_value(std::string_view header, std::string_view name);

// The CSRF token a request carries: the x-csrf-token header, else the form field `csrf` of a
// form body.
std::optional<std::string> presented_csrf(const ApiRequest& request);

class DashboardSessions final : public SessionAuthenticator {
  public:
    DashboardSessions(ports::DashboardStore& store, SessionSettings settings);

    std::optional<SessionUser> authenticate(const ApiRequest& request) override;
    ApiResponse unauthenticated(const ApiRequest& request) const override;
    std::optional<ApiResponse> forged(const ApiRequest& request,
                                      const SessionUser& user) const override;

    // Opens a session for `address`: the Set-Cookie header value of its token.
    std::string open(const std::string& address);
    // The Set-Cookie header value that removes the cookie.
    std::string clear_cookie() const;
    // Whether the request comes from our origin (the sign-in POST, which has no session yet).
    bool same_origin(const ApiRequest& request) const;

    const SessionSettings& settings() const { return settings_; }

  private:
    std::string cookie(std::string_view value, std::string_view max_age) const;

    ports::DashboardStore& store_;
    SessionSettings settings_;
    bool secure_;
};

}  // namespace duepay::api::dashboard
