#include "api/dashboard/project_scope.hpp"

#include <algorithm>
#include <utility>

#include "api/checkout/checkout_routes.hpp"
#include "api/dashboard/session_auth.hpp"
#include "api/http/api_types.hpp"
#include "api/http/envelope.hpp"

namespace duepay::api::dashboard {

ApiResponse html(int status, std::string body, Lang lang) {
    ApiResponse r;
    r.status = status;
    r.body = std::move(body);
    r.headers["content-type"] = "text/html; charset=utf-8";
    r.headers["content-language"] = std::string(checkout::lang_code(lang));
    return r;
}

ApiResponse redirect(std::string location) {
    ApiResponse r;
    r.status = 303;
    r.headers["location"] = std::move(location);
    r.headers["content-type"] = "text/plain; charset=utf-8";
    r.body = "see " + r.headers["location"] + "\n";
    return r;
}

std::optional<std::string> cookie(const ApiRequest& request, std::string_view name) {
    auto header = request.header("cookie");
    if (!header) return std::nullopt;
    return cookie_value(*header, name);
}

ApiResponse redirect_with_flash(std::string location, std::string_view path,
                                std::string_view flash) {
    auto r = redirect(std::move(location));
    r.headers["set-cookie"] = std::string(kFlashCookie) + "=" + std::string(flash) +
                              "; Path=" + std::string(path) +
                              "; Max-Age=60; HttpOnly; SameSite=Lax";
    return r;
}

std::optional<std::string> flash_of(const ApiRequest& request,
                                    std::span<const std::string_view> known) {
    auto value = cookie(request, kFlashCookie);
    if (!value || std::find(known.begin(), known.end(), *value) == known.end()) return std::nullopt;
    return value;
}

ApiResponse flash_shown(const ApiRequest& request, std::string_view path, ApiResponse answer) {
    if (cookie(request, kFlashCookie)) {
        answer.headers["set-cookie"] = std::string(kFlashCookie) + "=; Path=" + std::string(path) +
                                       "; Max-Age=0; HttpOnly; SameSite=Lax";
    }
    return answer;
}

Lang lang_of(const ApiRequest& request) {
    const auto chosen = cookie(request, kLangCookie).value_or("");
    return checkout::choose_lang(chosen, request.header("accept-language").value_or(""));
}

ports::Mode mode_of(const ApiRequest& request) {
    return cookie(request, kModeCookie).value_or("test") == "live" ? ports::Mode::live
                                                                   : ports::Mode::test;
}

std::string local_path(const std::optional<std::string>& next) {
    if (!next || next->empty() || (*next)[0] != '/' || next->starts_with("//") ||
        next->find('\\') != std::string::npos ||
        !std::all_of(next->begin(), next->end(),
                     [](unsigned char ch) { return ch > 0x20 && ch < 0x7f; })) {
        return "/projects";
    }
    return *next;
}

Form form_of(const ApiRequest& request) {
    Form out;
    for (auto& [name, value] : form_params(request.body)) out.emplace(name, std::move(value));
    return out;
}

std::optional<std::string> field(const Form& form, const std::string& name) {
    auto it = form.find(name);
    if (it == form.end()) return std::nullopt;
    return it->second;
}

bool wants_json(const ApiRequest& request) { return is_json_media_type(request); }

Chrome ProjectScope::chrome(const RouteCall& call) const {
    Chrome c;
    c.lang = lang_of(call.request);
    c.csrf = call.session().csrf;
    c.address = call.session().address;
    c.mode = mode_of(call.request);
    c.path = call.request.path;
    c.asset_version = asset_version_;
    return c;
}

std::optional<ApiResponse> ProjectScope::admit(const RouteCall& call,
                                               domain::accounts::ProjectAction action,
                                               std::string section, ProjectContext& ctx) const {
    ctx = ProjectContext{ports::ProjectId{call.params[0]},
                         ports::MemberRole::viewer,
                         chrome(call),
                         {call.session().address, call.session().session_id}};
    ctx.chrome.section = std::move(section);
    auto membership = store_.membership(ctx.project, ctx.actor.address);
    if (!membership) {
        if (wants_json(call.request)) {
            return error_response(404, "project_not_found", "no such project");
        }
        return html(404, message_page(ctx.chrome, "not_found", "not_found_body"), ctx.chrome.lang);
    }
    ctx.role = membership->role;
    ctx.chrome.project = std::move(*membership);
    if (!domain::accounts::allowed(ctx.role, action)) {
        if (wants_json(call.request)) {
            return error_response(403, "forbidden",
                                  "your role in this project does not allow this");
        }
        return html(403, message_page(ctx.chrome, "forbidden", "forbidden_body"), ctx.chrome.lang);
    }
    return std::nullopt;
}

RouteHandler ProjectScope::guard(domain::accounts::ProjectAction action, std::string section,
                                 ProjectHandler handler) const {
    return [this, action, section = std::move(section),
            handler = std::move(handler)](const RouteCall& call) {
        ProjectContext ctx;
        if (auto refused = admit(call, action, section, ctx)) return std::move(*refused);
        return handler(call, ctx);
    };
}

}  // namespace duepay::api::dashboard
