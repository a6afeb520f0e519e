#include "api/http/request_id.hpp"

#include "domain/hex.hpp"
#include "infra/random/random.hpp"

namespace duepay::api {

bool is_valid_request_id(std::string_view id) {
    if (id.empty() || id.size() > 128) return false;
    for (char c : id) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        if (!ok) return false;
    }
    return true;
}

std::string new_request_id() {
    auto bytes = infra::random::random_bytes<12>();
    return "req_" + domain::to_hex(bytes).substr(2);
}

std::string choose_request_id(const std::optional<std::string>& incoming) {
    if (incoming && is_valid_request_id(*incoming)) return *incoming;
    return new_request_id();
}

}  // namespace duepay::api
