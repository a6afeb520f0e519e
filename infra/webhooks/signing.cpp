#include "infra/webhooks/signing.hpp"

#include <openssl/evp.h>

#include <stdexcept>

#include "domain/hex.hpp"
#include "domain/webhooks/signature.hpp"
#include "infra/random/key_material.hpp"
#include "infra/random/random.hpp"

namespace duepay::infra::webhooks {
namespace dw = domain::webhooks;

namespace {

std::span<const std::uint8_t> bytes_of(std::string_view s) {
    return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
    std::string out(4 * ((bytes.size() + 2) / 3), '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(bytes.data()),
                                  static_cast<int>(bytes.size()));
    out.resize(static_cast<std::size_t>(n));
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    if (text.empty() || text.size() % 4 != 0) return std::nullopt;
    std::string out(text.size() / 4 * 3, '\0');
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(text.data()),
                                  static_cast<int>(text.size()));
    if (n < 0) return std::nullopt;
    std::size_t padding = 0;
    if (text.ends_with("==")) {
        padding = 2;
    } else if (text.ends_with("=")) {
        padding = 1;
    }
    out.resize(static_cast<std::size_t>(n) - padding);
    return out;
}

std::string new_secret() {
    const auto key = random::random_bytes<32>();
    return std::string(dw::kSecretPrefix) +
           base64_encode(std::string_view(reinterpret_cast<const char*>(key.data()), key.size()));
}

std::map<std::string, std::string> signature_headers(std::string_view event_id,
                                                     std::string_view body,
                                                     const std::vector<std::string>& secrets,
                                                     std::int64_t unix_seconds) {
    const auto stripe_payload = dw::stripe_signed_payload(unix_seconds, body);
    const auto standard_payload = dw::standard_signed_payload(event_id, unix_seconds, body);
    std::vector<std::string> hex_macs;
    std::vector<std::string> base64_macs;
    for (const auto& secret : secrets) {
        const auto key = base64_decode(dw::standard_key_text(secret));
        if (!key) throw std::invalid_argument("webhook secret is not whsec_ + base64");
        hex_macs.push_back(
            domain::to_hex(random::hmac_sha256(bytes_of(secret), stripe_payload)).substr(2));
        const auto mac = random::hmac_sha256(bytes_of(*key), standard_payload);
        base64_macs.push_back(
            base64_encode(std::string_view(reinterpret_cast<const char*>(mac.data()), mac.size())));
    }
    return {
        {"x-duepay-signature", dw::stripe_signature_header(unix_seconds, hex_macs)},
        {"webhook-id", std::string(event_id)},
        {"webhook-timestamp", std::to_string(unix_seconds)},
        {"webhook-signature", dw::standard_signature_header(base64_macs)},
    };
}

}  // namespace duepay::infra::webhooks
