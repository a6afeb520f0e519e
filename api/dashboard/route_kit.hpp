// What every group of the dashboard's routes shares (dashboard_routes.cpp and the feature files
// beside it, e.g. webhooks_routes.cpp): an HTML answer, a redirect after a POST, the form fields
// of a POST, a cookie, and the project gate (`in_project`: not a member is 404, a role without
// the right is 403 and nothing runs; domain/accounts/member_role).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "api/dashboard/dashboard_pages.hpp"
#include "api/http/router.hpp"
#include "domain/accounts/member_role.hpp"

namespace duepay::api::dashboard {

using Form = std::map<std::string, std::string>;

ApiResponse html(int status, std::string body, Lang lang);
// A 303 to a path of ours.
ApiResponse redirect(std::string location);
std::optional<std::string> cookie(const ApiRequest& request, std::string_view name);
Form form_of(const ApiRequest& request);
std::optional<std::string> field(const Form& form, const std::string& name);

// A /p/:projectId request once the gate let it through: the project, the user's role in it, the
// page's chrome and the actor its changes are audited as.
struct ProjectContext {
    ProjectId project;
    ports::MemberRole role;
    Chrome chrome;
    ports::DashboardActor actor;
};
using ProjectHandler = std::function<ApiResponse(const RouteCall&, ProjectContext&)>;
// in_project(action, nav section, handler): the route handler behind the gate.
using InProject = std::function<std::function<ApiResponse(const RouteCall&)>(
    domain::accounts::ProjectAction, std::string, ProjectHandler)>;

}  // namespace duepay::api::dashboard
