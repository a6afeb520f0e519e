// URLs a merchant gives us (returnUrl) and URLs we must not log (RPC endpoints carry provider
// keys), checked by parsing, never by prefix (docs/api.md "returnUrl", docs/security.md).
//
// parse_http_url accepts exactly: `http` or `https` (lower case), "://", a host, an optional
// ":port" (1..65535), then an optional path/query/fragment starting with '/', '?' or '#'.
// The host is a DNS name (labels of [A-Za-z0-9-], dots between, at most 253 characters), an
// IPv4 address (four decimal octets) or the IPv6 loopback "[::1]". Refused: userinfo ('@' before
// the path), a backslash anywhere, whitespace, control or non-ASCII bytes, '"', '<', '>', '`',
// '{', '}', '|', '^', percent-escapes in the host, an empty host. Error code "invalid_url".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "domain/result.hpp"

namespace duepay::domain {

struct HttpUrl {
    std::string scheme;  // "http" | "https"
    std::string host;    // as written (a DNS name is compared case-insensitively)
    std::optional<std::uint16_t> port;
    std::string rest;  // path, query and fragment; may be empty

    // "localhost" (not its subdomains), 127.0.0.0/8 and [::1].
    bool loopback_host() const;
};

Result<HttpUrl> parse_http_url(std::string_view text);

// The returnUrl rule (docs/api.md): at most 2048 characters, parse_http_url, and then https for
// any host; plain http only for a test-mode key and a loopback host (a developer's machine).
// Error code "invalid_return_url".
Result<std::string> check_return_url(std::string_view text, bool live_mode);

// What may be logged of a URL that can carry credentials in its userinfo, path or query (an RPC
// provider's key): "scheme://host[:port]". Anything that does not parse that far gives
// "<redacted url>".
std::string redact_url(std::string_view text);

// A transaction's page on the chain's block explorer: "<explorer_url>/tx/<tx_hash>", or nullopt
// when the chain has no explorer (`explorer_url` empty, as the dev chains) or there is no hash.
// The chain registry keeps `explorer_url` without a trailing '/'. The checkout and the
// dashboard's charge page link transactions through this one rule.
std::optional<std::string> explorer_tx_url(std::string_view explorer_url, std::string_view tx_hash);

}  // namespace duepay::domain
