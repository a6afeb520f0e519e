// What each signature scheme signs and the header values that carry the MACs (docs/design.md,
// docs/webhooks.md). The MACs themselves (HMAC-SHA256, OpenSSL) are computed in infra/webhooks.
//  - duepay/Stripe scheme: x-duepay-signature: t=<unix>,v1=<hex>[,v1=<hex>...] over "<t>.<body>",
//    keyed with the whole secret string ("whsec_..."), as Stripe's libraries expect.
//  - Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature: "v1,<base64>[ v1,...]"
//    over "<id>.<t>.<body>", keyed with the base64-decoded part of the secret after "whsec_".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace duepay::domain::webhooks {

inline constexpr std::string_view kSecretPrefix = "whsec_";

std::string stripe_signed_payload(std::int64_t unix_seconds, std::string_view body);
std::string standard_signed_payload(std::string_view event_id, std::int64_t unix_seconds,
                                    std::string_view body);

// "t=<t>,v1=<m1>,v1=<m2>": one v1 per active secret (hex MACs).
std::string stripe_signature_header(std::int64_t unix_seconds,
                                    const std::vector<std::string>& hex_macs);
// "v1,<m1> v1,<m2>": one entry per active secret (base64 MACs).
std::string standard_signature_header(const std::vector<std::string>& base64_macs);

// The base64 text after "whsec_" (the Standard Webhooks key), or empty when the prefix is missing.
std::string_view standard_key_text(std::string_view secret);

}  // namespace duepay::domain::webhooks
