#include "api/http/request_fields.hpp"

#include <algorithm>
#include <string>

#include "api/http/envelope.hpp"
#include "domain/text.hpp"

namespace duepay::api {
namespace {

bool listed(std::initializer_list<std::string_view> allowed, std::string_view name) {
    return std::find(allowed.begin(), allowed.end(), name) != allowed.end();
}

}  // namespace

ApiResponse unknown_field(std::string_view what, std::string_view name) {
    // Printable ASCII as is, anything else \xHH: the name is the client's bytes.
    return error_response(400, "unknown_field",
                          std::string(what) + " " + domain::escape_for_log(name, 100) +
                              " is not a field of this route");
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

std::optional<ApiResponse> reject_unknown_params(const ApiRequest& request,
                                                 std::initializer_list<std::string_view> allowed,
                                                 std::string_view prefix) {
    if (request.query.empty()) return std::nullopt;
    for (const auto& [name, value] : request.query_params()) {
        if (listed(allowed, name)) continue;
        if (!prefix.empty() && name.starts_with(prefix)) continue;
        return unknown_field("query parameter", name);
    }
    return std::nullopt;
}

}  // namespace duepay::api
