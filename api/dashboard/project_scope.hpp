// What every dashboard route shares (docs/dashboard.md): answers (an HTML page, a redirect after a
// POST), the language and mode cookies, form fields, and the guard of every /p/:projectId route.
// Each feature's routes (keys, charges, webhooks, ...) are added by a function of its own that
// takes a ProjectScope.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "api/dashboard/dashboard_pages.hpp"
#include "api/http/router.hpp"
#include "domain/accounts/member_role.hpp"
#include "domain/ports/dashboard.hpp"

namespace duepay::api::dashboard {

using Form = std::map<std::string, std::string>;

inline constexpr std::string_view kLangCookie = "duepay_lang";
inline constexpr std::string_view kModeCookie = "duepay_mode";
// A flash: a notice for the one page a form post's 303 leads to (docs/dashboard.md).
inline constexpr std::string_view kFlashCookie = "duepay_flash";

ApiResponse html(int status, std::string body, Lang lang);
// 303 to `location` (the answer to every form POST).
ApiResponse redirect(std::string location);

std::optional<std::string> cookie(const ApiRequest& request, std::string_view name);

// The flash, one-shot: redirect_with_flash is the 303 with a cookie naming `flash` (a short-lived,
// HttpOnly, SameSite=Lax cookie whose Path is `path`, the part of the project the notice is for);
// the page it leads to reads it with flash_of and answers through flash_shown, which clears it,
// so a reload or a shared link does not show the notice again. The value comes back from the
// browser: a page shows only a flash it names itself (`known`), never the value as it is.
ApiResponse redirect_with_flash(std::string location, std::string_view path,
                                std::string_view flash);
std::optional<std::string> flash_of(const ApiRequest& request,
                                    std::span<const std::string_view> known);
ApiResponse flash_shown(const ApiRequest& request, std::string_view path, ApiResponse answer);
Lang lang_of(const ApiRequest& request);
ports::Mode mode_of(const ApiRequest& request);
// A path of ours to come back to: "/..." of printable ASCII but not "//..." (another host),
// else "/projects".
std::string local_path(const std::optional<std::string>& next);

// An application/x-www-form-urlencoded body (the pipeline has checked the media type).
Form form_of(const ApiRequest& request);
std::optional<std::string> field(const Form& form, const std::string& name);
// The page's script asked for JSON (its fetch calls); a form post wants HTML.
bool wants_json(const ApiRequest& request);

// A /p/:projectId route's project, the user's role in it, the page chrome and who acts.
struct ProjectContext {
    ports::ProjectId project;
    ports::MemberRole role = ports::MemberRole::viewer;
    Chrome chrome;
    ports::DashboardActor actor;
};
using ProjectHandler = std::function<ApiResponse(const RouteCall&, ProjectContext&)>;

class ProjectScope {
  public:
    ProjectScope(ports::DashboardStore& store, std::string asset_version)
        : store_(store), asset_version_(std::move(asset_version)) {}

    // The chrome of a signed-in page: language, mode, CSRF token, the user, this path.
    Chrome chrome(const RouteCall& call) const;

    // The handler of a /p/:projectId route: the user's membership first (not a member: 404, as if
    // the project did not exist; a role that may not `action`: 403), and only then `handler`,
    // with the nav entry `section` marked. JSON callers get the envelope, pages an HTML page.
    RouteHandler guard(domain::accounts::ProjectAction action, std::string section,
                       ProjectHandler handler) const;
    // The guard's check alone (for an asynchronous route): fills `ctx` and answers nullopt when
    // the user may go on, else the refusal.
    std::optional<ApiResponse> admit(const RouteCall& call, domain::accounts::ProjectAction action,
                                     std::string section, ProjectContext& ctx) const;

    ports::DashboardStore& store() const { return store_; }

  private:
    ports::DashboardStore& store_;
    std::string asset_version_;
};

}  // namespace duepay::api::dashboard
