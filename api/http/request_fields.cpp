#include "api/http/request_fields.hpp"

#include <algorithm>
#include <string>

#include "api/http/envelope.hpp"
#include "domain/json.hpp"
#include "domain/text.hpp"

namespace duepay::api {
namespace {

bool listed(std::initializer_list<std::string_view> allowed, std::string_view name) {
    return std::find(allowed.begin(), allowed.end(), name) != allowed.end();
}

}  // namespace

std::optional<ApiResponse> parse_object_body(std::string_view body, rapidjson::Document& doc,
                                             const BodyRules& rules) {
    namespace json = domain::json;
    if (body.empty() && rules.empty_is_object) {
        doc.SetObject();
        return std::nullopt;
    }
    json::Options options;
    options.limits.storable_text = rules.storable_text;
    options.validate_utf8 = rules.validate_utf8 && !rules.storable_text;
    const auto problem = json::parse(doc, body, options);
    switch (problem.refusal) {
        case json::Refusal::none:
            break;
        case json::Refusal::syntax:
            return error_response(400, "invalid_json", "request body must be a JSON object");
        case json::Refusal::too_deep:
            return error_response(
                400, "json_too_deep",
                "request body nests deeper than " + std::to_string(json::kMaxDepth) + " levels");
        case json::Refusal::duplicate_member:
            // The name is the client's: printable ASCII as is, anything else \xHH.
            return error_response(400, "duplicate_field",
                                  "body field " + domain::escape_for_log(problem.path, 100) +
                                      " is given more than once");
        case json::Refusal::unstorable_string: {
            const auto at = domain::escape_for_log(problem.path, 100);
            const std::string where =
                problem.bad_member_name
                    ? (at.empty() ? std::string("a member name") : "a member name in " + at)
                    : (at.empty() ? std::string("body") : at);
            return error_response(400, "invalid_string",
                                  where + " must be valid UTF-8 without NUL characters");
        }
    }
    if (!doc.IsObject()) {
        return error_response(400, "invalid_json", "request body must be a JSON object");
    }
    return std::nullopt;
}

domain::Error unknown_field_error(std::string_view what, std::string_view name) {
    // Printable ASCII as is, anything else \xHH: the name is the client's bytes.
    return domain::make_error("unknown_field", std::string(what) + " " +
                                                   domain::escape_for_log(name, 100) +
                                                   " is not a field of this route");
}

ApiResponse unknown_field(std::string_view what, std::string_view name) {
    const auto e = unknown_field_error(what, name);
    return error_response(400, e.code, e.message);
}

std::optional<ApiResponse> reject_unknown_members(const rapidjson::Value& object,
                                                  std::initializer_list<std::string_view> allowed,
                                                  std::string_view parent) {
    for (auto it = object.MemberBegin(); it != object.MemberEnd(); ++it) {
        const std::string_view name(it->name.GetString(), it->name.GetStringLength());
        if (listed(allowed, name)) continue;
        const std::string path =
            parent.empty() ? std::string(name) : std::string(parent) + "." + std::string(name);
        return unknown_field("body field", path);
    }
    return std::nullopt;
}

std::optional<domain::Error> unknown_param(const ApiRequest& request,
                                           std::initializer_list<std::string_view> allowed,
                                           std::string_view prefix) {
    if (request.query.empty()) return std::nullopt;
    for (const auto& [name, value] : request.query_params()) {
        if (listed(allowed, name)) continue;
        if (!prefix.empty() && name.starts_with(prefix)) continue;
        return unknown_field_error("query parameter", name);
    }
    return std::nullopt;
}

std::optional<ApiResponse> reject_unknown_params(const ApiRequest& request,
                                                 std::initializer_list<std::string_view> allowed,
                                                 std::string_view prefix) {
    auto e = unknown_param(request, allowed, prefix);
    if (!e) return std::nullopt;
    return error_response(400, e->code, e->message);
}

}  // namespace duepay::api
