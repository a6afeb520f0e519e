#include "domain/webhooks/signature.hpp"

namespace duepay::domain::webhooks {

std::string stripe_signed_payload(std::int64_t unix_seconds, std::string_view body) {
    std::string out = std::to_string(unix_seconds);
    out.reserve(out.size() + 1 + body.size());
    out.push_back('.');
    out.append(body);
    return out;
}

std::string standard_signed_payload(std::string_view event_id, std::int64_t unix_seconds,
                                    std::string_view body) {
    std::string out(event_id);
    out.push_back('.');
    out.append(std::to_string(unix_seconds));
    out.push_back('.');
    out.append(body);
    return out;
}

std::string stripe_signature_header(std::int64_t unix_seconds,
                                    const std::vector<std::string>& hex_macs) {
    std::string out = "t=" + std::to_string(unix_seconds);
    for (const auto& mac : hex_macs) out.append(",v1=").append(mac);
    return out;
}

std::string standard_signature_header(const std::vector<std::string>& base64_macs) {
    std::string out;
    for (const auto& mac : base64_macs) {
        if (!out.empty()) out.push_back(' ');
        out.append("v1,").append(mac);
    }
    return out;
}

std::string_view standard_key_text(std::string_view secret) {
    if (!secret.starts_with(kSecretPrefix)) return {};
    return secret.substr(kSecretPrefix.size());
}

}  // namespace duepay::domain::webhooks
