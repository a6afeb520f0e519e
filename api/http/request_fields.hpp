// No silent drops (ADR 0162, docs/api.md "Unknown fields"): a body member or a query
// parameter that a route does not know is refused with 400 `unknown_field` naming it, as Stripe
// does, instead of being ignored. Each route lists what it accepts; these check the rest.
#pragma once

#include <rapidjson/document.h>

#include <initializer_list>
#include <optional>
#include <string_view>

#include "api/http/api_types.hpp"
#include "domain/result.hpp"

namespace duepay::api {

// How a route reads its JSON body. Every body goes through domain/json's bounded parse (depth 32,
// no member given twice, constant stack); these add the route's own rules.
struct BodyRules {
    bool storable_text = false;    // every string and name storable text, else 400 invalid_string
    bool validate_utf8 = false;    // invalid UTF-8 is 400 invalid_json (when not storable_text)
    bool empty_is_object = false;  // an empty body reads as {}
};
// The routes' presets: storable text (create, account routes), or valid UTF-8 (webhooks, refunds).
inline constexpr BodyRules kStorableBody{true, false, false};
inline constexpr BodyRules kStorableBodyOrEmpty{true, false, true};
inline constexpr BodyRules kUtf8Body{false, true, false};
inline constexpr BodyRules kUtf8BodyOrEmpty{false, true, true};

// `body` as a JSON object in `doc`, or the 400 in the envelope: invalid_json (malformed, not an
// object), json_too_deep, duplicate_field, invalid_string (docs/api-errors.md).
std::optional<ApiResponse> parse_object_body(std::string_view body, rapidjson::Document& doc,
                                             const BodyRules& rules);

// 400 unknown_field: "<what> <name> is not a field of this route" (the name shown escaped);
// unknown_field_error is its code and message alone.
ApiResponse unknown_field(std::string_view what, std::string_view name);
domain::Error unknown_field_error(std::string_view what, std::string_view name);

// The first member of `object` not in `allowed`, as 400 unknown_field named `<parent>.<name>`
// (or `<name>` when parent is empty); nullopt when every member is known. `object` must be an
// object.
std::optional<ApiResponse> reject_unknown_members(const rapidjson::Value& object,
                                                  std::initializer_list<std::string_view> allowed,
                                                  std::string_view parent = {});

// The first query parameter of `request` whose name is not in `allowed` and, when `prefix` is not
// empty, does not start with it (e.g. "metadata["), as 400 unknown_field; nullopt otherwise.
// unknown_param is the same as an error (for a parser that answers domain::Result).
std::optional<domain::Error> unknown_param(const ApiRequest& request,
                                           std::initializer_list<std::string_view> allowed,
                                           std::string_view prefix = {});
std::optional<ApiResponse> reject_unknown_params(const ApiRequest& request,
                                                 std::initializer_list<std::string_view> allowed,
                                                 std::string_view prefix = {});

}  // namespace duepay::api
