// Signing of webhook deliveries (docs/webhooks.md "Signatures"): HMAC-SHA256 by OpenSSL over the
// strings of domain/webhooks/signature.hpp, for every active secret of the endpoint, at the time
// of the attempt (each retry is signed afresh, so the receiver's 5-minute window holds).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace duepay::infra::webhooks {

// "whsec_" + base64 of 32 bytes from the CSPRNG.
std::string new_secret();

std::string base64_encode(std::string_view bytes);
// nullopt for text that is not canonical base64.
std::optional<std::string> base64_decode(std::string_view text);

// The headers of one attempt: x-duepay-signature, webhook-id, webhook-timestamp, webhook-signature.
// `secrets` are the endpoint's active secrets, current first. Throws std::invalid_argument for a
// secret without the whsec_ prefix or with invalid base64 (never stored by this service).
std::map<std::string, std::string> signature_headers(std::string_view event_id,
                                                     std::string_view body,
                                                     const std::vector<std::string>& secrets,
                                                     std::int64_t unix_seconds);

}  // namespace duepay::infra::webhooks
