// One HTTP pipeline for every web surface (the merchant API, the hosted checkout, and later the
// dashboard): a surface is a RouteTable, and a Pipeline runs the same steps, once, for every
// request the HTTP edge (api/http/http_edge.hpp) hands it:
//
//   admit (a surface's own per-client limit, if any)
//   -> match the path (404 route_not_found) and the method (405 method_not_allowed + Allow)
//   -> the transport rules the route declares (415 for a body that must be JSON)
//   -> the authentication the route declares (an API key: 401 invalid_api_key; a dashboard session:
//      the surface's own answer, a redirect to sign in; for a state-changing method also the
//      session's CSRF token and the request's origin, else 403)
//   -> the query parameters (a route that takes none refuses any: 400 unknown_field)
//   -> the handler
//   -> the envelope for what it throws (503 database_unavailable + Retry-After when a store is
//      unreachable, 500 internal_error for anything else, logged with the request id).
//
// The request id, the access log and the byte limits are the edge's, which runs before this.
// Routes never see a request they did not declare, and never authenticate for themselves.
#pragma once

#include <functional>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/http/api_types.hpp"
#include "api/http/port_names.hpp"

namespace duepay::api {

class Authenticator;

// Who may call a route.
enum class Auth {
    none,     // public (health, the checkout, the dashboard's sign-in)
    api_key,  // a project's API key (x-api-key or Authorization: Bearer)
    session,  // a dashboard session (its cookie), and its CSRF token on a state-changing method
};

// The signed-in user of an Auth::session route.
struct SessionUser {
    std::string session_id;
    std::string address;  // the wallet, EIP-55
    std::string csrf;     // the session's CSRF token
};

// The dashboard's sessions, as the pipeline asks about them (api/dashboard/session_auth.hpp).
class SessionAuthenticator {
  public:
    virtual ~SessionAuthenticator() = default;
    // The user of the request's session cookie, or nullopt. Throws ports::StoreUnavailable.
    virtual std::optional<SessionUser> authenticate(const ApiRequest& request) = 0;
    // The answer to a request without a live session (a page: a redirect to sign in).
    virtual ApiResponse unauthenticated(const ApiRequest& request) const = 0;
    // For a state-changing method: nullopt when the request carries the session's CSRF token and
    // comes from our own origin; otherwise the 403 to answer (nothing runs).
    virtual std::optional<ApiResponse> forged(const ApiRequest& request,
                                              const SessionUser& user) const = 0;
};

// What a route declares besides its method and path.
struct RouteOptions {
    Auth auth = Auth::api_key;
    bool own_query = false;  // the handler checks its query parameters; else any is refused
    bool json_body = false;  // content-type must be application/json (checked before auth)
    bool form_body = false;  // content-type must be application/x-www-form-urlencoded
};

// One call of a route: the request, the key's owner (Auth::api_key routes) or the signed-in user
// (Auth::session routes), the path parameters.
struct RouteCall {
    const ApiRequest& request;
    const KeyOwner* owner = nullptr;
    std::vector<std::string> params;  // each :name segment of the pattern, in order
    const SessionUser* user = nullptr;

    // The owner of an Auth::api_key route (the pipeline guarantees it is set).
    const KeyOwner& key() const { return *owner; }
    // The user of an Auth::session route (the pipeline guarantees it is set).
    const SessionUser& session() const { return *user; }
};

// Answers through `respond` exactly once, possibly later and from another thread.
using AsyncRouteHandler = std::function<void(const RouteCall&, Responder)>;
// Answers before it returns.
using RouteHandler = std::function<ApiResponse(const RouteCall&)>;

class RouteTable {
  public:
    // `pattern` is a path of literal segments and `:name` segments; a :name segment matches one
    // non-empty segment. Two routes with the same pattern and method are a bug (throws).
    RouteTable& add(std::string method, std::string pattern, RouteOptions options,
                    RouteHandler handler);
    RouteTable& add_async(std::string method, std::string pattern, RouteOptions options,
                          AsyncRouteHandler handler);

    struct Route {
        std::string method;
        std::string pattern;
        std::vector<std::string> segments;  // the pattern split at '/'
        RouteOptions options;
        AsyncRouteHandler handler;
    };

    struct Match {
        const Route* route = nullptr;     // null: no route for this method
        std::vector<std::string> params;  // when route is set
        std::string allow;                // the methods of this path, "GET, POST" (when 405)
    };
    // The route for `method` and `path`; nullopt when no pattern matches the path at all.
    std::optional<Match> match(std::string_view method, std::string_view path) const;

    const std::vector<Route>& routes() const { return routes_; }

  private:
    std::vector<Route> routes_;
};

struct PipelineSettings {
    std::string log_name = "api";     // the logger of unexpected errors
    long long retry_after_ms = 1000;  // advertised on 503
    // Runs before routing, for every request (the checkout's per-client bucket): an answer here
    // is final.
    std::function<std::optional<ApiResponse>(const ApiRequest&)> admit;
    // Headers added to every answer that does not set them (the checkout's security headers).
    std::vector<std::pair<std::string, std::string>> headers;
    // HEAD is served by the GET route (the edge sends the head without the body).
    bool head_as_get = false;
};

class Pipeline {
  public:
    // `keys` may be null only when no route declares Auth::api_key, `sessions` only when none
    // declares Auth::session (checked here: a missing dependency fails at start-up).
    Pipeline(RouteTable routes, Authenticator* keys, PipelineSettings settings,
             SessionAuthenticator* sessions = nullptr);

    // Runs one request through the steps above. Every step but the handler answers exactly
    // once; a handler answers exactly once too, except one that answers and then throws: the
    // envelope for what it threw follows as a second call (its error is logged either way).
    // Answering once on the wire is the HTTP edge's guarantee (api/http/http_edge.hpp: the
    // first answer leaves, any later one is dropped), not the pipeline's: a caller that is not
    // the edge (a unit test) keeps the first answer.
    void handle(const ApiRequest& request, Responder respond) const;

    const RouteTable& routes() const { return routes_; }

  private:
    RouteTable routes_;
    Authenticator* keys_;
    PipelineSettings settings_;
    SessionAuthenticator* sessions_;
};

// Throws std::invalid_argument naming `what` when `dependency` is null: surfaces check every
// dependency they are built with, so a missing one stops the process at start-up.
template <class T>
T& required(T* dependency, const char* what) {
    if (dependency == nullptr) throw std::invalid_argument(std::string(what) + " is required");
    return *dependency;
}

// GET /healthz -> 200 {"status":"ok"}, without a key, its query ignored: every surface's probe
// (the API's and the checkout's) is this one route.
void add_health_route(RouteTable& routes);

// application/json, any case, parameters (charset) allowed; a missing content-type is not JSON.
bool is_json_media_type(const ApiRequest& request);
// The same for application/x-www-form-urlencoded (an HTML form's body).
bool is_form_media_type(const ApiRequest& request);
// Whether `method` may change state (anything but GET, HEAD and OPTIONS).
bool state_changing(std::string_view method);

}  // namespace duepay::api
