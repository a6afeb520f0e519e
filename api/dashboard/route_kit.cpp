#include "api/dashboard/route_kit.hpp"

#include <utility>

#include "api/dashboard/session_auth.hpp"

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

}  // namespace duepay::api::dashboard
