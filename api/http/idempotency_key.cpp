#include "api/http/idempotency_key.hpp"

#include "infra/random/key_material.hpp"

namespace duepay::api {

domain::Result<std::string> parse_idempotency_key(std::string_view value) {
    if (value.empty() || value.size() > 255) {
        return domain::make_error("invalid_idempotency_key",
                                  "Idempotency-Key must be 1 to 255 characters");
    }
    for (char c : value) {
        if (c < 0x21 || c > 0x7e) {
            return domain::make_error(
                "invalid_idempotency_key",
                "Idempotency-Key must be visible ASCII characters (no spaces)");
        }
    }
    return std::string(value);
}

ports::RequestFingerprint request_fingerprint(std::string_view method, std::string_view path,
                                              std::string_view body) {
    std::string text;
    text.reserve(method.size() + path.size() + body.size() + 2);
    text.append(method).append(1, '\n').append(path).append(1, '\n').append(body);
    return infra::random::sha256(text);
}

}  // namespace duepay::api
