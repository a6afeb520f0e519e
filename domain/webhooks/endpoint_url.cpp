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
    const auto b0 = a[0], b1 = a[1], b2 = a[2];
    if (b0 == 0) return AddressClass::unspecified;                             // 0.0.0.0/8
    if (b0 == 127) return AddressClass::loopback;                              // 127/8
    if (b0 == 10) return AddressClass::private_network;                        // 10/8
    if (b0 == 172 && (b1 & 0xf0) == 16) return AddressClass::private_network;  // 172.16/12
    if (b0 == 192 && b1 == 168) return AddressClass::private_network;          // 192.168/16
    if (b0 == 100 && (b1 & 0xc0) == 64) return AddressClass::private_network;  // 100.64/10 CGNAT
    if (b0 == 169 && b1 == 254) return AddressClass::link_local;         // 169.254/16, metadata
    if (b0 >= 224 && b0 < 240) return AddressClass::multicast;           // 224/4
    if (b0 >= 240) return AddressClass::reserved;                        // 240/4, broadcast
    if (b0 == 198 && (b1 & 0xfe) == 18) return AddressClass::reserved;   // 198.18/15 benchmarking
    if (b0 == 192 && b1 == 0 && b2 == 0) return AddressClass::reserved;  // 192.0.0/24 IETF
    // Documentation: 192.0.2/24, 198.51.100/24, 203.0.113/24.
    if ((b0 == 192 && b1 == 0 && b2 == 2) || (b0 == 198 && b1 == 51 && b2 == 100) ||
        (b0 == 203 && b1 == 0 && b2 == 113)) {
        return AddressClass::reserved;
    }
    // Anycast service prefixes the registry calls globally reachable, refused all the same: an
    // anycast address is answered by the nearest instance, which may be one inside our own
    // network, and no merchant's receiver lives there. 192.31.196/24 AS112, 192.52.193/24 AMT,
    // 192.175.48/24 AS112 direct delegation; and 192.88.99/24, the withdrawn 6to4 relay anycast
    // block (192.88.99.2 is the 6a44 relay).
    if (b0 == 192 && ((b1 == 31 && b2 == 196) || (b1 == 52 && b2 == 193) ||
                      (b1 == 175 && b2 == 48) || (b1 == 88 && b2 == 99))) {
        return AddressClass::reserved;
    }
    return AddressClass::global;
}

namespace {

using V6 = std::array<std::uint8_t, 16>;

bool zero(const V6& a, std::size_t from, std::size_t to) {
    return std::all_of(a.begin() + static_cast<std::ptrdiff_t>(from),
                       a.begin() + static_cast<std::ptrdiff_t>(to), [](auto b) { return b == 0; });
}

std::array<std::uint8_t, 4> v4_at(const V6& a, std::size_t i, std::size_t j, std::size_t k,
                                  std::size_t l) {
    return {a[i], a[j], a[k], a[l]};
}

// The more restrictive of two classes: any non-global one wins over global.
AddressClass worst(AddressClass x, AddressClass y) { return x == AddressClass::global ? y : x; }

}  // namespace

// Every prefix that carries an IPv4 address is judged by that address, so that no spelling of
// 127.0.0.1, 10.0.0.1 or 169.254.169.254 in IPv6 passes; the prefixes whose traffic goes through a
// translator or relay that we do not run are never global whatever they carry (see each rule).
// Only 2000::/3 holds global unicast space; everything else is reserved unless named below.
AddressClass classify_ipv6(const std::array<std::uint8_t, 16>& a) {
    const auto v4_end = [&] { return v4_at(a, 12, 13, 14, 15); };
    if (zero(a, 0, 16)) return AddressClass::unspecified;             // ::
    if (zero(a, 0, 15) && a[15] == 1) return AddressClass::loopback;  // ::1
    // ::ffff:0:0/96 IPv4-mapped: a socket to it is an IPv4 socket to the address it carries.
    if (zero(a, 0, 10) && a[10] == 0xff && a[11] == 0xff) return classify_ipv4(v4_end());
    // ::ffff:0:0:0/96 IPv4-translated (::ffff:0:a.b.c.d, stateless translation).
    if (zero(a, 0, 8) && a[8] == 0xff && a[9] == 0xff && a[10] == 0 && a[11] == 0)
        return classify_ipv4(v4_end());
    if (zero(a, 0, 12)) return classify_ipv4(v4_end());  // ::/96 IPv4-compatible (deprecated)
    if (a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xff && a[3] == 0x9b) {
        // 64:ff9b::/96, the well-known NAT64 prefix: the translator reaches exactly the IPv4
        // address in the last four bytes.
        if (zero(a, 4, 12)) return classify_ipv4(v4_end());
        // 64:ff9b:1::/48, local-use translation: judged by the IPv4 address where RFC 6052 puts
        // it for a /48 prefix (bytes 6, 7, 9 and 10; byte 8 is the reserved "u" octet), and never
        // global even when that one is: the translator is a local one, reaching whatever IPv4
        // network it sits in, and an operator may carve a longer prefix out of the /48 (a /96
        // puts the address in the last four bytes), so what the address carries is not certain.
        if (a[4] == 0x00 && a[5] == 0x01) {
            const auto c = classify_ipv4(v4_at(a, 6, 7, 9, 10));
            return c == AddressClass::global ? AddressClass::private_network : c;
        }
        return AddressClass::reserved;  // the rest of 64:ff9b::/32: not assigned
    }
    if ((a[0] & 0xfe) == 0xfc)
        return AddressClass::private_network;  // fc00::/7 (ULA, fd00:ec2::254)
    if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) return AddressClass::link_local;  // fe80::/10
    if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0)
        return AddressClass::private_network;          // fec0::/10 site-local
    if (a[0] == 0xff) return AddressClass::multicast;  // ff00::/8
    if ((a[0] & 0xe0) != 0x20) {
        // Outside 2000::/3: 100::/64 discard-only, 100:0:0:1::/64 dummy prefix, 5f00::/16 SRv6
        // segment identifiers, and the unassigned rest.
        return AddressClass::reserved;
    }
    if (a[0] == 0x20 && a[1] == 0x02) return classify_ipv4(v4_at(a, 2, 3, 4, 5));  // 2002::/16
    if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x00 && a[3] == 0x00) {
        // 2001::/32 Teredo: bytes 4-7 are the Teredo server's IPv4 address, bytes 12-15 the
        // client's (its NAT's public address) XOR 0xff. A relay sends the packet towards the
        // client address, the server takes part in setting the path up; the service is obsolete
        // and no receiver lives there. A non-global server or client is reported as such, and a
        // Teredo address is never global in any case.
        const auto client = std::array<std::uint8_t, 4>{
            static_cast<std::uint8_t>(a[12] ^ 0xff), static_cast<std::uint8_t>(a[13] ^ 0xff),
            static_cast<std::uint8_t>(a[14] ^ 0xff), static_cast<std::uint8_t>(a[15] ^ 0xff)};
        const auto c = worst(classify_ipv4(v4_at(a, 4, 5, 6, 7)), classify_ipv4(client));
        return c == AddressClass::global ? AddressClass::reserved : c;
    }
    // The rest of 2001::/23, IETF protocol assignments: benchmarking 2001:2::/48, the withdrawn
    // ORCHID 2001:10::/28, and the rows the registry calls globally reachable, refused as well:
    // the anycast service addresses 2001:1::1-3 and AMT 2001:3::/32 and AS112 2001:4:112::/48
    // (the nearest instance answers, possibly one of ours), and ORCHIDv2 2001:20::/28 and drone
    // entity tags 2001:30::/28 (identifiers, not locators).
    if (a[0] == 0x20 && a[1] == 0x01 && a[2] < 0x02) return AddressClass::reserved;
    if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8)
        return AddressClass::reserved;  // 2001:db8::/32 documentation
    if (a[0] == 0x3f && a[1] == 0xff && (a[2] & 0xf0) == 0)
        return AddressClass::reserved;  // 3fff::/20 documentation
    if (a[0] == 0x26 && a[1] == 0x20 && a[2] == 0x00 && a[3] == 0x4f && a[4] == 0x80 &&
        a[5] == 0x00) {
        return AddressClass::reserved;  // 2620:4f:8000::/48 AS112 direct delegation (anycast)
    }
    return AddressClass::global;
}

bool may_connect(AddressClass c, bool allow_insecure) {
    if (c == AddressClass::global) return true;
    return allow_insecure && c == AddressClass::loopback;
}

}  // namespace duepay::domain::webhooks
