#include "domain/accounts/project_settings.hpp"

#include <algorithm>

#include "domain/text.hpp"
#include "domain/url.hpp"

namespace duepay::domain::accounts {

Result<std::string> check_project_name(std::string_view name) {
    const bool controls = std::any_of(name.begin(), name.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
    });
    if (!is_storable_text(name) || controls || name.empty() || utf8_code_points(name) > 120) {
        return make_error("invalid_name",
                          "name must be 1 to 120 characters without control characters");
    }
    return std::string(name);
}

Result<std::string> check_logo_url(std::string_view url, bool allow_http) {
    auto parsed = url.size() <= 500 ? parse_http_url(url) : Result<HttpUrl>(Error{});
    if (!parsed || (!allow_http && parsed->scheme != "https")) {
        return make_error("invalid_logo_url",
                          allow_http ? "logoUrl must be an http(s) URL of at most 500 characters"
                                     : "logoUrl must be an https URL of at most 500 characters");
    }
    return std::string(url);
}

Result<std::string> check_accent_color(std::string_view color) {
    const bool ok =
        color.size() == 7 && color[0] == '#' &&
        std::all_of(color.begin() + 1, color.end(), [](char c) {
            return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        });
    if (!ok) return make_error("invalid_accent_color", "accentColor must be #rrggbb");
    return std::string(color);
}

Result<int> check_payment_window(long long seconds) {
    if (seconds < kMinPaymentWindowSeconds || seconds > kMaxPaymentWindowSeconds) {
        return make_error("invalid_payment_window",
                          "paymentWindowSeconds must be an integer from 1 to 86400");
    }
    return static_cast<int>(seconds);
}

}  // namespace duepay::domain::accounts
