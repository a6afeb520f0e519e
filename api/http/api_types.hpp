// The API's own view of an HTTP exchange, independent of Pistache so routes are unit-testable:
// a request, a response, and a one-shot responder that may be called from another thread.
#pragma once

#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace duepay::api {

struct ApiRequest {
    std::string method;  // "GET", "POST", ...
    std::string path;    // without the query string
    std::string query;   // the raw query string (after '?', before '#'), not decoded
    std::string remote;  // the peer's address (host), for per-client limits
    std::map<std::string, std::string> headers;  // names lower-cased
    std::string body;
    std::string request_id;  // set by the server before routing

    // The first `name` parameter of `query`, decoded as application/x-www-form-urlencoded ('+' is
    // a space, %XX a byte; a malformed escape stays as written), or nullopt (api_types.cpp).
    std::optional<std::string> query_param(std::string_view name) const;

    // Every parameter of `query` in order, names and values decoded as query_param does (a
    // parameter without '=' has an empty value; empty pairs from "&&" are skipped).
    std::vector<std::pair<std::string, std::string>> query_params() const;

    // The first parameter name of `query` (decoded the same way) that is not in `known`, or
    // nullopt when every one is known (routes answer 400 unknown_field, naming it).
    std::optional<std::string> unknown_query_param(
        std::initializer_list<std::string_view> known) const;

    std::optional<std::string> header(const std::string& lower_name) const {
        auto it = headers.find(lower_name);
        if (it == headers.end()) return std::nullopt;
        return it->second;
    }
};

struct ApiResponse {
    int status = 200;
    std::string body;  // envelope JSON
    std::map<std::string, std::string> headers;
};

// The pairs of an application/x-www-form-urlencoded text (a query string or an HTML form's body),
// decoded as ApiRequest::query_params does.
std::vector<std::pair<std::string, std::string>> form_params(std::string_view text);
// Its inverse for one name or value: every byte but ALPHA / DIGIT / "-" / "." / "_" / "~" as %XX.
std::string form_encode(std::string_view text);

// Called exactly once per request, possibly after the route handler returned.
using Responder = std::function<void(ApiResponse)>;

// The `limit` query parameter of a listing: absent -> 20; an integer 1..100; nullopt for anything
// else (the route answers 400 invalid_limit).
std::optional<std::size_t> parse_limit_param(const ApiRequest& request);

}  // namespace duepay::api
