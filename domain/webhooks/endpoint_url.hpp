// The URL rules of webhook endpoints (docs/webhooks.md "Endpoint URLs"): https only, at most 2048
// characters, no credentials, no fragment; with allow_insecure (DUEPAY_WEBHOOK_ALLOW_INSECURE=1,
// the dev stack only, and the callers pass it for test-mode endpoints only) http and loopback are
// accepted too. Which addresses a delivery may reach is decided here from the address bytes; the
// resolver and the socket check are in infra/webhooks.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "domain/result.hpp"

namespace duepay::domain::webhooks {

inline constexpr std::size_t kMaxUrlLength = 2048;

struct EndpointUrl {
    std::string scheme;  // "https" (or "http" when insecure is allowed)
    std::string host;    // lower-case name or IP literal, IPv6 without brackets
    std::uint16_t port = 443;
};

// Codes: invalid_webhook_url, webhook_url_too_long, webhook_url_not_https,
// webhook_url_credentials.
Result<EndpointUrl> parse_endpoint_url(std::string_view url, bool allow_insecure);

enum class AddressClass {
    global,
    loopback,
    private_network,
    link_local,
    multicast,
    unspecified,
    reserved
};

// Global is what a delivery may reach; the special-purpose blocks (documentation, benchmarking,
// IETF assignments, anycast service prefixes) are reserved. tests/unit/domain/webhooks checks
// every row of the special-purpose address registries against these two functions.
AddressClass classify_ipv4(const std::array<std::uint8_t, 4>& a);
// Every form that carries an IPv4 address is judged by that address: IPv4-mapped (::ffff:0:0/96),
// IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96), NAT64 (64:ff9b::/96), 6to4
// (2002::/16); the local-use NAT64 prefix (64:ff9b:1::/48) and Teredo (2001::/32) are never
// global, whatever they carry. Only 2000::/3 can be global.
AddressClass classify_ipv6(const std::array<std::uint8_t, 16>& a);

// A delivery may connect to global addresses; with allow_insecure also to loopback (so tests can
// use a local receiver). Private, link-local (cloud metadata 169.254.169.254), multicast,
// unspecified and reserved addresses never.
bool may_connect(AddressClass c, bool allow_insecure);

}  // namespace duepay::domain::webhooks
