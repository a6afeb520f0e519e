#include "domain/url.hpp"

#include <algorithm>
#include <cctype>

namespace duepay::domain {
namespace {

Error bad(std::string message) { return make_error("invalid_url", std::move(message)); }

bool is_alnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Visible ASCII except the characters a URL must escape (RFC 3986 excludes them; browsers differ
// on '\\', which some read as '/').
bool allowed_in_rest(char c) {
    if (c < 0x21 || c > 0x7e) return false;
    switch (c) {
        case '"':
        case '<':
        case '>':
        case '\\':
        case '^':
        case '`':
        case '{':
        case '|':
        case '}':
            return false;
        default:
            return true;
    }
}

std::optional<int> decimal(std::string_view s, int max) {
    if (s.empty() || s.size() > 5 || (s.size() > 1 && s[0] == '0')) return std::nullopt;
    int v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + (c - '0');
    }
    if (v > max) return std::nullopt;
    return v;
}

bool is_ipv4(std::string_view host) {
    int parts = 0;
    while (true) {
        const auto dot = host.find('.');
        if (!decimal(host.substr(0, dot), 255)) return false;
        ++parts;
        if (dot == std::string_view::npos) break;
        host.remove_prefix(dot + 1);
    }
    return parts == 4;
}

bool is_dns_name(std::string_view host) {
    if (host.empty() || host.size() > 253) return false;
    if (host.back() == '.') host.remove_suffix(1);  // a fully qualified name
    while (true) {
        const auto dot = host.find('.');
        const auto label = host.substr(0, dot);
        if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-')
            return false;
        if (!std::all_of(label.begin(), label.end(),
                         [](char c) { return is_alnum(c) || c == '-'; })) {
            return false;
        }
        if (dot == std::string_view::npos) return true;
        host.remove_prefix(dot + 1);
    }
}

bool all_digits_and_dots(std::string_view host) {
    return std::all_of(host.begin(), host.end(),
                       [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

}  // namespace

bool HttpUrl::loopback_host() const {
    if (host == "[::1]") return true;
    std::string lower(host);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == "localhost" || lower == "localhost.") return true;
    return is_ipv4(host) && host.starts_with("127.");
}

Result<HttpUrl> parse_http_url(std::string_view text) {
    HttpUrl url;
    const auto sep = text.find("://");
    if (sep == std::string_view::npos) return bad("must be an absolute http(s) URL");
    url.scheme = std::string(text.substr(0, sep));
    if (url.scheme != "http" && url.scheme != "https") return bad("scheme must be https (or http)");
    const std::string_view after = text.substr(sep + 3);
    for (char c : after) {
        if (!allowed_in_rest(c)) {
            return bad(
                "contains a space, control, non-ASCII or unsafe character; percent-encode it");
        }
    }
    const auto end = after.find_first_of("/?#");
    std::string_view authority = after.substr(0, end);
    url.rest = end == std::string_view::npos ? std::string() : std::string(after.substr(end));
    if (authority.find('@') != std::string_view::npos)
        return bad("must not contain user information ('@')");
    std::string_view host = authority;
    if (authority.starts_with('[')) {  // an IPv6 literal: only the loopback
        const auto close = authority.find(']');
        if (close == std::string_view::npos) return bad("unterminated IPv6 host");
        host = authority.substr(0, close + 1);
        if (host != "[::1]") return bad("IPv6 hosts other than [::1] are not accepted");
        authority.remove_prefix(close + 1);
        if (!authority.empty() && authority.front() != ':') return bad("malformed host");
    } else {
        const auto colon = authority.find(':');
        host = authority.substr(0, colon);
        authority = colon == std::string_view::npos ? std::string_view() : authority.substr(colon);
        if (host.empty()) return bad("has no host");
        if (all_digits_and_dots(host) ? !is_ipv4(host) : !is_dns_name(host)) {
            return bad("host must be a DNS name or an IPv4 address");
        }
    }
    url.host = std::string(host);
    if (!authority.empty()) {  // ":port"
        const auto port = decimal(authority.substr(1), 65535);
        if (!port || *port == 0) return bad("port must be a number from 1 to 65535");
        url.port = static_cast<std::uint16_t>(*port);
    }
    return url;
}

Result<std::string> check_return_url(std::string_view text, bool live_mode) {
    if (text.size() > 2048) {
        return make_error("invalid_return_url", "returnUrl must be at most 2048 characters");
    }
    auto url = parse_http_url(text);
    if (!url) return make_error("invalid_return_url", "returnUrl " + url.error().message);
    if (url->scheme == "https") return std::string(text);
    if (live_mode)
        return make_error("invalid_return_url", "returnUrl must be an https URL for a live key");
    if (!url->loopback_host()) {
        return make_error(
            "invalid_return_url",
            "returnUrl must be https (plain http only to localhost, 127.0.0.0/8 or [::1] "
            "with a test key)");
    }
    return std::string(text);
}

std::string redact_url(std::string_view text) {
    const auto sep = text.find("://");
    if (sep == std::string_view::npos || sep == 0) return "<redacted url>";
    const std::string_view scheme = text.substr(0, sep);
    if (!std::all_of(scheme.begin(), scheme.end(),
                     [](char c) { return is_alnum(c) || c == '+' || c == '-' || c == '.'; })) {
        return "<redacted url>";
    }
    std::string_view authority = text.substr(sep + 3);
    authority = authority.substr(0, authority.find_first_of("/?#"));
    if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
        authority.remove_prefix(at + 1);
    }
    const bool clean =
        !authority.empty() && std::all_of(authority.begin(), authority.end(), [](char c) {
            return is_alnum(c) || c == '.' || c == '-' || c == ':' || c == '[' || c == ']';
        });
    if (!clean) return "<redacted url>";
    return std::string(scheme) + "://" + std::string(authority);
}

std::optional<std::string> explorer_tx_url(std::string_view explorer_url,
                                           std::string_view tx_hash) {
    if (explorer_url.empty() || tx_hash.empty()) return std::nullopt;
    return std::string(explorer_url) + "/tx/" + std::string(tx_hash);
}

}  // namespace duepay::domain
