#include "domain/accounts/siwe.hpp"

#include <algorithm>
#include <array>

#include "domain/evm/address.hpp"
#include "domain/evm/eip191.hpp"

namespace duepay::domain::accounts::siwe {
namespace {

constexpr std::string_view kHeaderTail = " wants you to sign in with your Ethereum account:";

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_unreserved(char c) {
    return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}
bool is_sub_delim(char c) {
    return std::string_view("!$&'()*+,;=").find(c) != std::string_view::npos;
}
bool is_gen_delim(char c) { return std::string_view(":/?#[]@").find(c) != std::string_view::npos; }

// Every character of `s` passes `allowed`, or is a well-formed "%" HEXDIG HEXDIG when `pct`.
template <class Pred>
bool all_of_set(std::string_view s, Pred allowed, bool pct) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (pct && s[i] == '%') {
            if (i + 2 >= s.size()) return false;
            if (!is_hex(s[i + 1]) || !is_hex(s[i + 2])) return false;
            i += 2;
            continue;
        }
        if (!allowed(s[i])) return false;
    }
    return true;
}

bool valid_scheme(std::string_view s) {
    if (s.empty() || !is_alpha(s[0])) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return is_alpha(c) || is_digit(c) || c == '+' || c == '-' || c == '.';
    });
}

// RFC 3986 authority: [userinfo "@"] host [":" port], checked by its character set.
bool valid_authority(std::string_view s) {
    return !s.empty() && all_of_set(
                             s,
                             [](char c) {
                                 return is_unreserved(c) || is_sub_delim(c) || c == ':' ||
                                        c == '@' || c == '[' || c == ']';
                             },
                             true);
}

// RFC 3986 URI: scheme ":" hier-part etc., checked as a scheme and the URI character set.
bool valid_uri(std::string_view s) {
    const auto colon = s.find(':');
    if (colon == std::string_view::npos || !valid_scheme(s.substr(0, colon))) return false;
    return all_of_set(
        s.substr(colon + 1),
        [](char c) { return is_unreserved(c) || is_sub_delim(c) || is_gen_delim(c); }, true);
}

bool valid_statement(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return is_unreserved(c) || is_sub_delim(c) || is_gen_delim(c) || c == ' ';
    });
}

bool valid_request_id(std::string_view s) {
    return !s.empty() &&
           all_of_set(
               s,
               [](char c) { return is_unreserved(c) || is_sub_delim(c) || c == ':' || c == '@'; },
               true);
}

bool valid_nonce(std::string_view s) {
    return s.size() >= 8 &&
           std::all_of(s.begin(), s.end(), [](char c) { return is_alpha(c) || is_digit(c); });
}

std::optional<std::uint64_t> parse_chain_id(std::string_view s) {
    if (s.empty() || s[0] == '0' || s.size() > 20) return std::nullopt;
    std::uint64_t v = 0;
    for (char c : s) {
        if (!is_digit(c)) return std::nullopt;
        const auto d = static_cast<std::uint64_t>(c - '0');
        if (v > (UINT64_MAX - d) / 10) return std::nullopt;
        v = v * 10 + d;
    }
    return v;
}

// Days since 1970-01-01 of a proleptic Gregorian date (the civil-calendar algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2 ? 1 : 0;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// `n` digits at `s[at]` as a number, or -1.
int digits(std::string_view s, std::size_t at, std::size_t n) {
    if (at + n > s.size()) return -1;
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
        if (!is_digit(s[i])) return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

Error malformed(std::string message) { return make_error("siwe_malformed", std::move(message)); }

std::string line_no(std::size_t i) { return std::to_string(i + 1); }

}  // namespace

std::optional<std::int64_t> parse_timestamp_ms(std::string_view s) {
    // full-date "T" partial-time time-offset; partial-time = hh:mm:ss [ "." 1*DIGIT ]
    if (s.size() < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
        s[13] != ':' || s[16] != ':') {
        return std::nullopt;
    }
    const int year = digits(s, 0, 4), month = digits(s, 5, 2), day = digits(s, 8, 2);
    const int hour = digits(s, 11, 2), minute = digits(s, 14, 2), second = digits(s, 17, 2);
    if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 ||
        minute > 59 || second < 0 || second > 59) {
        return std::nullopt;
    }
    static constexpr std::array kDays{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (day > kDays[static_cast<std::size_t>(month - 1)] + (month == 2 && leap ? 1 : 0))
        return std::nullopt;
    std::size_t i = 19;
    std::int64_t millis = 0;
    if (i < s.size() && s[i] == '.') {
        ++i;
        const std::size_t start = i;
        while (i < s.size() && is_digit(s[i])) {
            if (i - start < 3) millis = millis * 10 + (s[i] - '0');
            ++i;
        }
        if (i == start) return std::nullopt;
        for (std::size_t k = std::min<std::size_t>(i - start, 3); k < 3; ++k) millis *= 10;
    }
    std::int64_t offset_min = 0;
    if (i + 1 == s.size() && (s[i] == 'Z' || s[i] == 'z')) {
        // UTC
    } else if (i + 6 == s.size() && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':') {
        const int oh = digits(s, i + 1, 2), om = digits(s, i + 4, 2);
        if (oh < 0 || oh > 23 || om < 0 || om > 59) return std::nullopt;
        offset_min = std::int64_t{s[i] == '-' ? -1 : 1} * (oh * 60 + om);
    } else {
        return std::nullopt;
    }
    const std::int64_t seconds =
        days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 86400 +
        std::int64_t{hour} * 3600 + std::int64_t{minute} * 60 + second - offset_min * 60;
    if (seconds < 0) return std::nullopt;
    return seconds * 1000 + millis;
}

std::string format(const Message& m) {
    std::string out;
    if (m.scheme) out.append(*m.scheme).append("://");
    out.append(m.domain).append(kHeaderTail).append("\n");
    out.append(evm::to_checksum(m.address)).append("\n\n");
    if (m.statement && !m.statement->empty()) out.append(*m.statement).append("\n");
    out.append("\nURI: ").append(m.uri);
    out.append("\nVersion: ").append(m.version);
    out.append("\nChain ID: ").append(std::to_string(m.chain_id.value));
    out.append("\nNonce: ").append(m.nonce);
    out.append("\nIssued At: ").append(m.issued_at);
    if (m.expiration_time) out.append("\nExpiration Time: ").append(*m.expiration_time);
    if (m.not_before) out.append("\nNot Before: ").append(*m.not_before);
    if (m.request_id) out.append("\nRequest ID: ").append(*m.request_id);
    if (m.resources) {
        out.append("\nResources:");
        for (const auto& r : *m.resources) out.append("\n- ").append(r);
    }
    return out;
}

Result<Message> parse(std::string_view text) {
    if (text.size() > kMaxMessageBytes) {
        return make_error("siwe_too_long", std::string("the message is ")
                                               .append(std::to_string(text.size()))
                                               .append(" bytes; at most ")
                                               .append(std::to_string(kMaxMessageBytes))
                                               .append(" are accepted"));
    }
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if ((c < 0x20 && c != '\n') || c == 0x7f) {
            return make_error("siwe_control_character",
                              std::string("control character at byte ").append(std::to_string(i)));
        }
        if (c >= 0x80) {
            return malformed(std::string("non-ASCII byte at ")
                                 .append(std::to_string(i))
                                 .append(": the EIP-4361 grammar is ASCII"));
        }
    }
    std::vector<std::string_view> lines;
    for (std::size_t start = 0;;) {
        const auto nl = text.find('\n', start);
        lines.push_back(text.substr(start, nl == std::string_view::npos ? nl : nl - start));
        if (nl == std::string_view::npos) break;
        start = nl + 1;
    }

    Message m;
    // Line 1: [scheme "://"] domain " wants you to sign in with your Ethereum account:"
    const std::string_view header = lines[0];
    if (header.size() <= kHeaderTail.size() || !header.ends_with(kHeaderTail)) {
        return malformed(std::string("line 1 must be \"{domain}").append(kHeaderTail).append("\""));
    }
    std::string_view authority = header.substr(0, header.size() - kHeaderTail.size());
    if (const auto sep = authority.find("://"); sep != std::string_view::npos) {
        if (!valid_scheme(authority.substr(0, sep))) {
            return make_error("siwe_bad_domain", "the scheme before the domain is not valid");
        }
        m.scheme = std::string(authority.substr(0, sep));
        authority = authority.substr(sep + 3);
    }
    if (!valid_authority(authority)) {
        return make_error("siwe_bad_domain", "the domain is not an RFC 3986 authority");
    }
    m.domain = std::string(authority);

    // Line 2: the address, exactly in its EIP-55 form.
    if (lines.size() < 2) return malformed("line 2 must be the address");
    auto address = evm::parse_address(lines[1]);
    if (!address || !lines[1].starts_with("0x") || evm::to_checksum(*address) != lines[1]) {
        return make_error("siwe_bad_address",
                          "line 2 must be the address as 0x and 40 hex digits in EIP-55 form");
    }
    m.address = *address;

    // An empty line, then either an empty line or the statement and an empty line.
    std::size_t i = 2;
    if (lines.size() < 5 || !lines[2].empty()) return malformed("line 3 must be empty");
    if (lines[3].empty()) {
        i = 4;
    } else {
        if (!valid_statement(lines[3])) {
            return make_error("siwe_bad_statement",
                              "the statement may hold only RFC 3986 characters and spaces");
        }
        if (lines.size() < 6 || !lines[4].empty()) {
            return malformed("the statement must be followed by an empty line");
        }
        m.statement = std::string(lines[3]);
        i = 5;
    }

    // The labelled lines, in order.
    const auto take = [&](std::string_view label) -> std::optional<std::string_view> {
        if (i < lines.size() && lines[i].starts_with(label)) return lines[i++].substr(label.size());
        return std::nullopt;
    };
    const auto required = [&](std::string_view label) -> Result<std::string_view> {
        if (auto v = take(label)) return *v;
        return malformed(std::string("line ")
                             .append(line_no(i))
                             .append(" must start with \"")
                             .append(label)
                             .append("\""));
    };
    const auto timestamp = [](std::string_view name, std::string_view v) -> std::optional<Error> {
        if (parse_timestamp_ms(v)) return std::nullopt;
        return make_error("siwe_bad_timestamp",
                          std::string(name).append(" is not an RFC 3339 date-time"));
    };

    auto uri = required("URI: ");
    if (!uri) return uri.error();
    if (!valid_uri(*uri)) return make_error("siwe_bad_uri", "the URI is not an RFC 3986 URI");
    m.uri = std::string(*uri);

    auto version = required("Version: ");
    if (!version) return version.error();
    if (*version != "1") return make_error("siwe_bad_version", "the version must be 1");

    auto chain = required("Chain ID: ");
    if (!chain) return chain.error();
    const auto chain_id = parse_chain_id(*chain);
    if (!chain_id) {
        return make_error("siwe_bad_chain_id",
                          "the chain id must be a positive decimal integer below 2^64");
    }
    m.chain_id = ChainId{*chain_id};

    auto nonce = required("Nonce: ");
    if (!nonce) return nonce.error();
    if (!valid_nonce(*nonce)) {
        return make_error("siwe_bad_nonce", "the nonce must be at least 8 letters and digits");
    }
    m.nonce = std::string(*nonce);

    auto issued = required("Issued At: ");
    if (!issued) return issued.error();
    if (auto e = timestamp("Issued At", *issued)) return *e;
    m.issued_at = std::string(*issued);

    if (auto v = take("Expiration Time: ")) {
        if (auto e = timestamp("Expiration Time", *v)) return *e;
        m.expiration_time = std::string(*v);
    }
    if (auto v = take("Not Before: ")) {
        if (auto e = timestamp("Not Before", *v)) return *e;
        m.not_before = std::string(*v);
    }
    if (auto v = take("Request ID: ")) {
        if (!valid_request_id(*v)) {
            return make_error("siwe_bad_request_id", "the request id must be RFC 3986 pchars");
        }
        m.request_id = std::string(*v);
    }
    if (i < lines.size() && lines[i] == "Resources:") {
        ++i;
        m.resources.emplace();
        while (i < lines.size() && lines[i].starts_with("- ")) {
            const auto r = lines[i++].substr(2);
            if (!valid_uri(r)) {
                return make_error("siwe_bad_resource", std::string("resource on line ")
                                                           .append(line_no(i - 1))
                                                           .append(" is not an RFC 3986 URI"));
            }
            m.resources->emplace_back(r);
        }
    }
    if (i != lines.size()) {
        return malformed(std::string("unexpected line ")
                             .append(line_no(i))
                             .append(" (a field out of order, repeated or unknown, or a trailing "
                                     "line break)"));
    }
    return m;
}

std::optional<Error> check(const Message& m, const Expectations& expected, std::int64_t now_ms) {
    const auto scheme_end = expected.origin.find("://");
    const std::string_view our_scheme =
        scheme_end == std::string::npos ? std::string_view()
                                        : std::string_view(expected.origin).substr(0, scheme_end);
    if (m.domain != expected.domain || (m.scheme && *m.scheme != our_scheme)) {
        return make_error("siwe_wrong_domain", std::string("the message is for ")
                                                   .append(m.domain)
                                                   .append(", not ")
                                                   .append(expected.domain));
    }
    const std::string_view uri = m.uri;
    if (!uri.starts_with(expected.origin) ||
        (uri.size() > expected.origin.size() &&
         std::string_view("/?#").find(uri[expected.origin.size()]) == std::string_view::npos)) {
        return make_error("siwe_wrong_uri",
                          std::string("the URI's origin is not ").append(expected.origin));
    }
    if (std::find(expected.chain_ids.begin(), expected.chain_ids.end(), m.chain_id) ==
        expected.chain_ids.end()) {
        return make_error("siwe_wrong_chain", std::string("chain ")
                                                  .append(std::to_string(m.chain_id.value))
                                                  .append(" is not accepted for sign-in"));
    }
    if (expected.nonce.empty() || m.nonce != expected.nonce) {
        return make_error("siwe_nonce_mismatch",
                          "the nonce is not the one issued for this sign-in; request a new one");
    }
    const auto issued = parse_timestamp_ms(m.issued_at);
    const auto expires =
        m.expiration_time ? parse_timestamp_ms(*m.expiration_time) : std::optional<std::int64_t>();
    const auto not_before =
        m.not_before ? parse_timestamp_ms(*m.not_before) : std::optional<std::int64_t>();
    if (!issued || (m.expiration_time && !expires) || (m.not_before && !not_before)) {
        return make_error("siwe_bad_timestamp", "a timestamp is not an RFC 3339 date-time");
    }
    if (*issued > now_ms + expected.max_skew_ms) {
        return make_error("siwe_issued_in_future", "the message is issued in the future");
    }
    if (now_ms - *issued > expected.max_age_ms) {
        return make_error("siwe_too_old", "the message was issued too long ago; sign in again");
    }
    if (not_before && now_ms < *not_before) {
        return make_error("siwe_not_yet_valid",
                          std::string("the message is not valid before ").append(*m.not_before));
    }
    if (expires && now_ms >= *expires) {
        return make_error("siwe_expired",
                          std::string("the message expired at ").append(*m.expiration_time));
    }
    return std::nullopt;
}

Bytes32 signing_hash(const Message& message) { return evm::personal_message_hash(format(message)); }

}  // namespace duepay::domain::accounts::siwe
