#include "api/http/router.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <utility>

#include "api/http/auth.hpp"
#include "api/http/envelope.hpp"
#include "api/http/request_fields.hpp"
#include "domain/ports/errors.hpp"
#include "infra/log/log.hpp"

namespace duepay::api {
namespace {

std::vector<std::string> split_path(std::string_view path) {
    std::vector<std::string> out;
    if (path.empty() || path.front() != '/') return out;
    std::size_t start = 1;
    while (true) {
        const auto slash = path.find('/', start);
        out.emplace_back(path.substr(start, slash - start));
        if (slash == std::string_view::npos) break;
        start = slash + 1;
    }
    return out;
}

// Whether `segments` fit `pattern`; the :name segments' values are appended to `params`.
bool fits(const std::vector<std::string>& pattern, const std::vector<std::string>& segments,
          std::vector<std::string>& params) {
    if (pattern.size() != segments.size()) return false;
    params.clear();
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const auto& p = pattern[i];
        if (!p.empty() && p.front() == ':') {
            if (segments[i].empty()) return false;
            params.push_back(segments[i]);
        } else if (p != segments[i]) {
            return false;
        }
    }
    return true;
}

// The answer to a handler that threw, in the envelope; the detail stays in the log.
ApiResponse thrown(const PipelineSettings& settings, const ApiRequest& request) {
    try {
        throw;
    } catch (const ports::StoreUnavailable& e) {
        infra::log::Record(settings.log_name, infra::log::Level::warn)
                .with("request_id", request.request_id)
            << settings.log_name << ": database unavailable: " << e.what();
        return error_response(503, "database_unavailable",
                              "the database is unavailable; retry later", settings.retry_after_ms);
    } catch (const std::exception& e) {
        infra::log::Record(settings.log_name, infra::log::Level::error)
                .with("request_id", request.request_id)
            << settings.log_name << ": internal error: " << e.what();
    } catch (...) {
        infra::log::Record(settings.log_name, infra::log::Level::error)
                .with("request_id", request.request_id)
            << settings.log_name << ": internal error: unknown exception";
    }
    return error_response(500, "internal_error", "internal server error");
}

}  // namespace

namespace {

bool media_type_is(const ApiRequest& request, std::string_view want) {
    auto ct = request.header("content-type");
    if (!ct) return false;
    std::string media = ct->substr(0, ct->find(';'));
    std::transform(media.begin(), media.end(), media.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    while (!media.empty() && (media.back() == ' ' || media.back() == '\t')) media.pop_back();
    return media == want;
}

}  // namespace

bool is_json_media_type(const ApiRequest& request) {
    return media_type_is(request, "application/json");
}

bool is_form_media_type(const ApiRequest& request) {
    return media_type_is(request, "application/x-www-form-urlencoded");
}

bool state_changing(std::string_view method) {
    return method != "GET" && method != "HEAD" && method != "OPTIONS";
}

RouteTable& RouteTable::add(std::string method, std::string pattern, RouteOptions options,
                            RouteHandler handler) {
    return add_async(
        std::move(method), std::move(pattern), options,
        [handler = std::move(handler)](const RouteCall& call, const Responder& respond) {
            respond(handler(call));
        });
}

RouteTable& RouteTable::add_async(std::string method, std::string pattern, RouteOptions options,
                                  AsyncRouteHandler handler) {
    for (const auto& r : routes_) {
        if (r.method == method && r.pattern == pattern) {
            std::string what = "route declared twice: ";
            what += method;
            what += ' ';
            what += pattern;
            throw std::invalid_argument(what);
        }
    }
    auto segments = split_path(pattern);
    if (segments.empty())
        throw std::invalid_argument("route pattern must start with /: " + pattern);
    routes_.push_back(Route{std::move(method), std::move(pattern), std::move(segments), options,
                            std::move(handler)});
    return *this;
}

std::optional<RouteTable::Match> RouteTable::match(std::string_view method,
                                                   std::string_view path) const {
    const auto segments = split_path(path);
    if (segments.empty()) return std::nullopt;
    std::optional<Match> found;
    std::vector<std::string> params;
    for (const auto& route : routes_) {
        if (!fits(route.segments, segments, params)) continue;
        if (!found) found.emplace();
        if (found->route == nullptr && route.method == method) {
            found->route = &route;
            found->params = params;
        }
        if (found->allow.find(route.method) == std::string::npos) {
            if (!found->allow.empty()) found->allow += ", ";
            found->allow += route.method;
        }
    }
    return found;
}

Pipeline::Pipeline(RouteTable routes, Authenticator* keys, PipelineSettings settings,
                   SessionAuthenticator* sessions)
    : routes_(std::move(routes)), keys_(keys), settings_(std::move(settings)), sessions_(sessions) {
    for (const auto& r : routes_.routes()) {
        if (r.options.auth == Auth::api_key && keys_ == nullptr) {
            throw std::invalid_argument("route " + r.method + " " + r.pattern +
                                        " needs an API key authenticator");
        }
        if (r.options.auth == Auth::session && sessions_ == nullptr) {
            throw std::invalid_argument("route " + r.method + " " + r.pattern +
                                        " needs a session authenticator");
        }
    }
}

void add_health_route(RouteTable& routes) {
    RouteOptions open;
    open.auth = Auth::none;
    open.own_query = true;  // a probe's query is ignored
    routes.add("GET", "/healthz", open,
               [](const RouteCall&) { return success_response(200, R"({"status":"ok"})"); });
}

void Pipeline::handle(const ApiRequest& request, Responder respond) const {
    // Every answer gets the surface's headers, whichever step gives it.
    if (!settings_.headers.empty()) {
        respond = [headers = &settings_.headers, next = std::move(respond)](ApiResponse r) {
            for (const auto& [name, value] : *headers) r.headers.emplace(name, value);
            next(std::move(r));
        };
    }
    // A handler that answered and then threw still gets the envelope (and its error logged):
    // the edge drops that second answer (see handle in router.hpp).
    try {
        if (settings_.admit) {
            if (auto refused = settings_.admit(request)) return respond(std::move(*refused));
        }
        const bool head = settings_.head_as_get && request.method == "HEAD";
        auto match = routes_.match(head ? std::string_view("GET") : request.method, request.path);
        if (!match) return respond(error_response(404, "route_not_found", "no such route"));
        if (match->route == nullptr) {
            auto r = error_response(405, "method_not_allowed", "method not allowed");
            r.headers["allow"] = match->allow;
            if (settings_.head_as_get && match->allow.find("GET") != std::string::npos)
                r.headers["allow"] += ", HEAD";
            return respond(std::move(r));
        }
        const auto& route = *match->route;
        if (route.options.json_body && !is_json_media_type(request)) {
            return respond(error_response(415, "unsupported_media_type",
                                          "content-type must be application/json"));
        }
        if (route.options.form_body && !is_form_media_type(request)) {
            return respond(
                error_response(415, "unsupported_media_type",
                               "content-type must be application/x-www-form-urlencoded"));
        }
        std::optional<KeyOwner> owner;
        if (route.options.auth == Auth::api_key) {
            owner = keys_->authenticate(request);
            if (!owner) return respond(error_response(401, "invalid_api_key", "invalid API key"));
        }
        std::optional<SessionUser> user;
        if (route.options.auth == Auth::session) {
            user = sessions_->authenticate(request);
            if (!user) return respond(sessions_->unauthenticated(request));
            if (state_changing(request.method)) {
                if (auto refused = sessions_->forged(request, *user)) {
                    return respond(std::move(*refused));
                }
            }
        }
        if (!route.options.own_query) {
            if (auto unknown = reject_unknown_params(request, {}))
                return respond(std::move(*unknown));
        }
        const RouteCall call{request, owner ? &*owner : nullptr, std::move(match->params),
                             user ? &*user : nullptr};
        route.handler(call, respond);
    } catch (...) {
        respond(thrown(settings_, request));
    }
}

}  // namespace duepay::api
