#include "domain/webhooks/endpoint_url.hpp"

#include <algorithm>
#include <cctype>

#include "domain/url.hpp"

namespace duepay::domain::webhooks {
namespace {

Error invalid(std::string message) { return make_error("invalid_webhook_url", std::move(message)); }

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

}  // namespace

// The grammar is domain/url.hpp's parse_http_url (the returnUrl rules); on top of it: the
// webhook codes (scheme, length, credentials), no fragment, and IPv6 literals of any address (so
// that the address rules, not the parser, decide about them).
Result<EndpointUrl> parse_endpoint_url(std::string_view url, bool allow_insecure) {
    if (url.size() > kMaxUrlLength) {
        return make_error("webhook_url_too_long", "url must be at most 2048 characters");
    }
    const auto sep = url.find("://");
    if (sep == std::string_view::npos) return invalid("url must be an absolute https:// URL");
    EndpointUrl out;
    out.scheme = lower(url.substr(0, sep));
    if (out.scheme != "https" && !(allow_insecure && out.scheme == "http")) {
        return make_error("webhook_url_not_https", "url must use https://");
    }
    const auto after_scheme = url.substr(sep + 3);
    const auto authority = after_scheme.substr(0, after_scheme.find_first_of("/?#"));
    if (authority.find('@') != std::string_view::npos) {
        return make_error("webhook_url_credentials",
                          "url must not contain credentials (user:password@)");
    }
    if (url.find('#') != std::string_view::npos) return invalid("url must not have a fragment");
    // parse_http_url knows only [::1] among IPv6 literals: check any other one here and let it
    // parse the rest of the URL around a stand-in.
    std::string text = out.scheme + "://" + std::string(after_scheme);
    std::string ipv6;
    if (authority.starts_with("[")) {
        const auto close = authority.find(']');
        if (close == std::string_view::npos || close < 3)
            return invalid("url has a malformed IPv6 host");
        ipv6 = lower(authority.substr(1, close - 1));
        if (ipv6.find_first_not_of("0123456789abcdef:.") != std::string::npos) {
            return invalid("url has a malformed IPv6 host");
        }
        text = out.scheme + "://[::1]" + std::string(after_scheme.substr(close + 1));
    }
    auto parsed = parse_http_url(text);
    if (!parsed) return invalid(parsed.error().message);
    out.host = ipv6.empty() ? lower(parsed->host) : ipv6;
    if (out.host.ends_with(".")) out.host.pop_back();
    if (out.host.empty()) return invalid("url must name a host");
    out.port = parsed->port.value_or(out.scheme == "https" ? 443 : 80);
    return out;
}

AddressClass classify_ipv4(const std::array<std::uint8_t, 4>& a) {
    const auto b0 = a[0], b1 = a[1];
    if (b0 == 0) return AddressClass::unspecified;                             // 0.0.0.0/8
    if (b0 == 127) return AddressClass::loopback;                              // 127/8
    if (b0 == 10) return AddressClass::private_network;                        // 10/8
    if (b0 == 172 && (b1 & 0xf0) == 16) return AddressClass::private_network;  // 172.16/12
    if (b0 == 192 && b1 == 168) return AddressClass::private_network;          // 192.168/16
    if (b0 == 100 && (b1 & 0xc0) == 64) return AddressClass::private_network;  // 100.64/10 CGNAT
    if (b0 == 169 && b1 == 254) return AddressClass::link_local;           // 169.254/16, metadata
    if (b0 == 192 && b1 == 0 && a[2] == 0) return AddressClass::reserved;  // 192.0.0/24
    if (b0 == 198 && (b1 & 0xfe) == 18) return AddressClass::reserved;     // 198.18/15
    if (b0 >= 224 && b0 < 240) return AddressClass::multicast;             // 224/4
    if (b0 >= 240) return AddressClass::reserved;                          // 240/4, broadcast
    return AddressClass::global;
}

AddressClass classify_ipv6(const std::array<std::uint8_t, 16>& a) {
    auto zero_until = [&](std::size_t n) {
        return std::all_of(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n),
                           [](auto b) { return b == 0; });
    };
    auto v4_at_end = [&] { return std::array<std::uint8_t, 4>{a[12], a[13], a[14], a[15]}; };
    if (zero_until(16)) return AddressClass::unspecified;             // ::
    if (zero_until(15) && a[15] == 1) return AddressClass::loopback;  // ::1
    if (zero_until(10) && a[10] == 0xff && a[11] == 0xff)
        return classify_ipv4(v4_at_end());                  // ::ffff:0:0/96
    if (zero_until(12)) return classify_ipv4(v4_at_end());  // IPv4-compatible (deprecated)
    if (a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xff && a[3] == 0x9b &&
        std::all_of(a.begin() + 4, a.begin() + 12, [](auto b) { return b == 0; })) {
        return classify_ipv4(v4_at_end());  // 64:ff9b::/96 NAT64
    }
    if ((a[0] & 0xfe) == 0xfc)
        return AddressClass::private_network;  // fc00::/7 (ULA, fd00:ec2::254)
    if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) return AddressClass::link_local;  // fe80::/10
    if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0)
        return AddressClass::private_network;          // fec0::/10 site-local
    if (a[0] == 0xff) return AddressClass::multicast;  // ff00::/8
    if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8)
        return AddressClass::reserved;  // doc
    return AddressClass::global;
}

bool may_connect(AddressClass c, bool allow_insecure) {
    if (c == AddressClass::global) return true;
    return allow_insecure && c == AddressClass::loopback;
}

}  // namespace duepay::domain::webhooks
