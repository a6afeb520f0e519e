#include "api/http/envelope.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <string>

namespace duepay::api {

ApiResponse success_response(int status, std::string_view data_json) {
    ApiResponse response;
    response.status = status;
    response.body.reserve(data_json.size() + 48);
    response.body += R"({"success":true,"data":)";
    response.body += data_json;
    response.body += R"(,"error":null})";
    return response;
}

ApiResponse error_response(int status, std::string_view code, std::string_view message,
                           std::optional<long long> retry_after_ms) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
    w.StartObject();
    w.Key("success");
    w.Bool(false);
    w.Key("data");
    w.Null();
    w.Key("error");
    w.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
    w.Key("meta");
    w.StartObject();
    w.Key("code");
    w.String(code.data(), static_cast<rapidjson::SizeType>(code.size()));
    if (retry_after_ms) {
        w.Key("retryAfterMs");
        w.Int64(*retry_after_ms);
    }
    w.EndObject();
    w.EndObject();
    ApiResponse response;
    response.status = status;
    response.body.assign(buffer.GetString(), buffer.GetSize());
    // The standard header beside meta.retryAfterMs, in whole seconds rounded up (at least 1), so
    // a generic HTTP client or proxy backs off too (docs/api-errors.md).
    if (retry_after_ms)
        response.headers["retry-after"] =
            std::to_string(std::max<long long>(1, (*retry_after_ms + 999) / 1000));
    return response;
}

ApiResponse bad_request(std::string_view code, std::string_view message) {
    return error_response(400, code, message);
}

}  // namespace duepay::api
