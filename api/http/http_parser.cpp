#include "api/http/http_parser.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

#include "api/http/envelope.hpp"

namespace duepay::api {
namespace {

using Kind = HeadResult::Kind;

HeadResult rejected(ApiResponse response) {
    HeadResult result;
    result.kind = Kind::rejected;
    result.rejection = std::move(response);
    return result;
}

HeadResult malformed(std::string_view why) {
    return rejected(error_response(400, "malformed_request", why));
}

HeadResult head_too_large(const HttpLimits& limits) {
    return rejected(error_response(
        431, "request_header_fields_too_large",
        "request headers are larger than " + std::to_string(limits.max_head_bytes) +
            " bytes or more than " + std::to_string(limits.max_header_count) + " fields"));
}

HeadResult uri_too_long(const HttpLimits& limits) {
    return rejected(error_response(
        414, "uri_too_long",
        "request line is longer than " + std::to_string(limits.max_request_line) + " bytes"));
}

// Credentials that could name two keys are refused before any route reads them: a repeated
// x-api-key or Authorization field (a proxy that keeps the other one would authenticate someone
// else), or an x-api-key and a Bearer token that differ (docs/api-errors.md).
std::optional<ApiResponse> ambiguous_credentials(const ApiRequest& request, std::size_t api_keys,
                                                 std::size_t authorizations) {
    auto refuse = [](std::string_view why) {
        return error_response(400, "ambiguous_credentials", why);
    };
    if (api_keys > 1) return refuse("send one x-api-key header, not several");
    if (authorizations > 1) return refuse("send one authorization header, not several");
    const auto key = request.header("x-api-key");
    const auto auth = request.header("authorization");
    if (!key || key->empty() || !auth) return std::nullopt;
    constexpr std::string_view kBearer = "bearer ";
    if (auth->size() < kBearer.size()) return std::nullopt;
    const bool bearer =
        std::equal(kBearer.begin(), kBearer.end(), auth->begin(),
                   [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
    if (bearer && std::string_view(*auth).substr(kBearer.size()) != *key) {
        return refuse("x-api-key and the authorization bearer token name different keys");
    }
    return std::nullopt;
}

// RFC 9110 tchar.
bool is_tchar(unsigned char c) {
    if (std::isalnum(c) != 0) return c < 0x80;
    constexpr std::string_view kExtra = "!#$%&'*+-.^_`|~";
    return kExtra.find(static_cast<char>(c)) != std::string_view::npos;
}

// A byte that may not appear in a request line (before its CR LF): controls, DEL, non-ASCII.
bool bad_in_request_line(unsigned char c) { return c < 0x20 || c >= 0x7f; }

// A byte that may not appear in a field value: controls other than HTAB, and DEL.
bool bad_in_field_value(unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7f; }

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

bool all_digits(std::string_view s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// Host = uri-host [ ":" port ] (RFC 9110 7.2); an empty value is allowed.
bool valid_host(std::string_view host) {
    std::string_view port;
    if (!host.empty() && host.front() == '[') {
        const auto close = host.find(']');
        if (close == std::string_view::npos || close < 2) return false;
        for (unsigned char c : host.substr(1, close - 1)) {
            if (std::isxdigit(c) == 0 && c != ':' && c != '.') return false;
        }
        const auto rest = host.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') return false;
            port = rest.substr(1);
        }
    } else {
        const auto colon = host.find(':');
        if (colon != std::string_view::npos) {
            port = host.substr(colon + 1);
            host = host.substr(0, colon);
        }
        constexpr std::string_view kSubDelims = "-._~!$&'()*+,;=%";
        for (unsigned char c : host) {
            if ((std::isalnum(c) == 0 || c >= 0x80) &&
                kSubDelims.find(static_cast<char>(c)) == std::string_view::npos) {
                return false;
            }
        }
    }
    if (port.empty()) return true;
    return all_digits(port) && port.size() <= 5 && std::stoul(std::string(port)) <= 65535;
}

// The path of an origin-form or absolute-form target, without query or fragment; empty if the
// target is neither.
std::string target_path(std::string_view target) {
    if (target.front() != '/') {
        const std::string l = lower(target.substr(0, std::min<std::size_t>(target.size(), 8)));
        std::size_t scheme = 0;
        if (l.rfind("http://", 0) == 0) scheme = 7;
        if (l.rfind("https://", 0) == 0) scheme = 8;
        if (scheme == 0) return {};
        const auto slash = target.find('/', scheme);
        target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
    }
    return std::string(target.substr(0, target.find_first_of("?#")));
}

}  // namespace

HeadResult parse_request_head(std::string_view buffer, const HttpLimits& limits) {
    // A client may send empty lines before a request (RFC 9112 2.2).
    std::size_t start = 0;
    while (buffer.size() >= start + 2 && buffer[start] == '\r' && buffer[start + 1] == '\n')
        start += 2;
    if (start > 16) return malformed("too many empty lines before the request");

    // The request line; judged as it arrives, so garbage (a TLS handshake, binary) is refused at
    // its first bytes instead of waiting for a line end that may never come.
    // Only the longest line allowed, its CR and its LF are looked at, and every check is made on
    // the bytes within the limit, so a verdict on the first bytes of a request is the verdict on
    // all of them (http_parser_fuzz_test feeds every request in two pieces).
    const std::size_t max_line = limits.max_request_line;
    const auto window = buffer.substr(std::min(start, buffer.size()), max_line + 2);
    const auto nl_in_window = window.find('\n');
    const bool ended = nl_in_window != std::string_view::npos;
    const auto first = window.substr(0, ended ? nl_in_window : window.size());
    // A CR alone at the end may begin one more empty line: its LF decides.
    if (!ended && first == "\r") return {};
    const auto judged = first.substr(0, max_line + 1);  // the line within the limit, or its CR
    for (std::size_t i = 0; i < judged.size(); ++i) {
        const auto c = static_cast<unsigned char>(judged[i]);
        const bool final_cr = c == '\r' && i + 1 == first.size();  // its CR, or a CR still alone
        if (bad_in_request_line(c) && !final_cr)
            return malformed("request line contains a control or non-ASCII byte");
    }
    const auto sp1 = judged.find(' ');
    const auto method = judged.substr(0, sp1);
    if (sp1 == 0 ||
        !std::all_of(method.begin(), method.end(), [](unsigned char c) { return is_tchar(c); })) {
        return malformed("request line does not start with a method");
    }
    // Its CR, when it has come, is not part of the line's length.
    const bool has_cr = !first.empty() && first.back() == '\r';
    if (first.size() - (has_cr ? 1 : 0) > max_line) return uri_too_long(limits);
    if (!ended) return {};
    if (!has_cr) return malformed("lines must end with CR LF");
    const auto nl = start + nl_in_window;
    const auto line = first.substr(0, first.size() - 1);
    const auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
    if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos ||
        sp2 == sp1 + 1) {
        return malformed("request line must be: method SP target SP HTTP-version");
    }
    const auto target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    const auto version = line.substr(sp2 + 1);

    HeadResult result;
    ParsedHead& head = result.head;
    if (version == "HTTP/1.1") {
        head.http10 = false;
    } else if (version == "HTTP/1.0") {
        head.http10 = true;
    } else if (version.size() >= 6 && version.substr(0, 5) == "HTTP/" &&
               std::isdigit(static_cast<unsigned char>(version[5])) != 0) {
        return rejected(error_response(505, "http_version_not_supported",
                                       "only HTTP/1.1 and HTTP/1.0 are served"));
    } else {
        return malformed("request line has no valid HTTP-version");
    }
    // Any method token goes to routing (404, or 405 with allow): an unknown method is a client's
    // mistake, not a server error.
    head.request.method = std::string(method);
    head.request.path = target_path(target);
    if (head.request.path.empty()) return malformed("request target must be an absolute path");
    if (const auto q = target.find('?'); q != std::string_view::npos) {
        const auto rest = target.substr(q + 1);
        head.request.query = std::string(rest.substr(0, rest.find('#')));
    }

    // Header fields.
    std::size_t pos = nl + 1;
    std::size_t count = 0;
    std::size_t hosts = 0;
    std::string host;
    std::vector<std::string_view> content_lengths;
    bool transfer_encoding = false;
    bool close = false;
    bool keep_alive_token = false;
    std::size_t api_keys = 0;
    std::size_t authorizations = 0;
    for (;;) {
        const auto e = buffer.find('\n', pos);
        if (e == std::string_view::npos || e + 1 > limits.max_head_bytes) {
            const auto rest =
                buffer.substr(pos, std::min(buffer.size(), limits.max_head_bytes + 1) -
                                       std::min(pos, buffer.size()));
            // A NUL is refused as it arrives, unless the field it is in will be one too many:
            // that field's verdict, once whole, is 431 (the count is checked first).
            const bool one_too_many =
                count >= limits.max_header_count && !rest.empty() && rest != "\r";
            if (!one_too_many && rest.find('\0') != std::string_view::npos)
                return malformed("header field contains a NUL byte");
            if (buffer.size() > limits.max_head_bytes) return head_too_large(limits);
            return {};
        }
        if (e == pos || buffer[e - 1] != '\r') return malformed("lines must end with CR LF");
        const auto field = buffer.substr(pos, e - 1 - pos);
        pos = e + 1;
        if (field.empty()) break;
        if (++count > limits.max_header_count) return head_too_large(limits);
        if (field.front() == ' ' || field.front() == '\t')
            return malformed("folded header lines are not accepted");
        const auto colon = field.find(':');
        if (colon == std::string_view::npos || colon == 0)
            return malformed("header field without a name");
        const auto name = field.substr(0, colon);
        if (!std::all_of(name.begin(), name.end(), [](unsigned char c) { return is_tchar(c); })) {
            return malformed("header field name is not a token");
        }
        const auto value = trim(field.substr(colon + 1));
        if (std::any_of(value.begin(), value.end(),
                        [](unsigned char c) { return bad_in_field_value(c); })) {
            return malformed("header field value contains a control byte");
        }
        std::string lname = lower(name);
        if (lname == "host") {
            ++hosts;
            host = std::string(value);
        } else if (lname == "content-length") {
            std::string_view list = value;
            for (;;) {
                const auto comma = list.find(',');
                content_lengths.push_back(trim(list.substr(0, comma)));
                if (comma == std::string_view::npos) break;
                list.remove_prefix(comma + 1);
            }
        } else if (lname == "transfer-encoding") {
            transfer_encoding = true;
        } else if (lname == "connection") {
            const std::string tokens = lower(value);
            std::string_view list = tokens;
            for (;;) {
                const auto comma = list.find(',');
                const auto token = trim(list.substr(0, comma));
                close = close || token == "close";
                keep_alive_token = keep_alive_token || token == "keep-alive";
                if (comma == std::string_view::npos) break;
                list.remove_prefix(comma + 1);
            }
        } else if (lname == "expect") {
            head.expect_continue = lower(value) == "100-continue";
        } else if (lname == "x-api-key") {
            ++api_keys;
        } else if (lname == "authorization") {
            ++authorizations;
        }
        head.request.headers[std::move(lname)] = std::string(value);
    }
    head.head_bytes = pos;
    // Refusals of a whole head keep it, so the answer can echo the client's x-request-id.
    auto refuse = [&result](ApiResponse response) {
        result.kind = Kind::rejected;
        result.rejection = std::move(response);
        return std::move(result);
    };

    if (transfer_encoding) {
        return refuse(error_response(501, "transfer_encoding_not_supported",
                                     "transfer-encoding is not supported: send content-length"));
    }
    if ((!head.http10 && hosts != 1) || hosts > 1 || (hosts == 1 && !valid_host(host))) {
        return refuse(
            error_response(400, "invalid_host", "exactly one valid host header is required"));
    }
    if (auto ambiguous = ambiguous_credentials(head.request, api_keys, authorizations))
        return refuse(std::move(*ambiguous));
    for (const auto cl : content_lengths) {
        if (!all_digits(cl) || cl != content_lengths.front()) {
            return refuse(error_response(400, "invalid_content_length",
                                         "content-length must be one decimal number"));
        }
    }
    if (!content_lengths.empty()) {
        const auto digits = content_lengths.front();
        if (digits.size() > 15 || std::stoull(std::string(digits)) > limits.max_body_bytes) {
            return refuse(error_response(
                413, "payload_too_large",
                "request body is larger than " + std::to_string(limits.max_body_bytes) + " bytes"));
        }
        head.content_length = static_cast<std::size_t>(std::stoull(std::string(digits)));
    }
    head.keep_alive = head.http10 ? keep_alive_token && !close : !close;
    result.kind = Kind::complete;
    return result;
}

namespace {

const char* reason(int status) {
    switch (status) {
        case 100:
            return "Continue";
        case 200:
            return "OK";
        case 201:
            return "Created";
        case 204:
            return "No Content";
        case 400:
            return "Bad Request";
        case 401:
            return "Unauthorized";
        case 403:
            return "Forbidden";
        case 404:
            return "Not Found";
        case 405:
            return "Method Not Allowed";
        case 408:
            return "Request Timeout";
        case 409:
            return "Conflict";
        case 413:
            return "Content Too Large";
        case 414:
            return "URI Too Long";
        case 415:
            return "Unsupported Media Type";
        case 422:
            return "Unprocessable Content";
        case 429:
            return "Too Many Requests";
        case 431:
            return "Request Header Fields Too Large";
        case 500:
            return "Internal Server Error";
        case 501:
            return "Not Implemented";
        case 503:
            return "Service Unavailable";
        case 505:
            return "HTTP Version Not Supported";
        default:
            return "Status";
    }
}

// The status line, content-type, x-request-id and the response's own headers.
void append_head_fields(std::string& out, const ApiResponse& response,
                        const std::string& request_id) {
    out += "HTTP/1.1 ";
    out += std::to_string(response.status);
    out += ' ';
    out += reason(response.status);
    out += "\r\n";
    if (response.headers.find("content-type") == response.headers.end()) {
        out += "content-type: application/json\r\n";
    }
    out += "x-request-id: " + request_id + "\r\n";
    // A header is one line whatever a route put in it: CR, LF and NUL are dropped, so a value
    // built from request input (a redirect's location) can never start a header of its own.
    auto append_field = [&out](std::string_view text) {
        for (char ch : text) {
            if (ch != '\r' && ch != '\n' && ch != '\0') out += ch;
        }
    };
    for (const auto& [name, value] : response.headers) {
        append_field(name);
        out += ": ";
        append_field(value);
        out += "\r\n";
    }
}

}  // namespace

std::string serialize_response(const ApiResponse& response, const std::string& request_id,
                               bool close, bool http10_keep_alive, bool head_only) {
    std::string out;
    out.reserve(256 + response.body.size());
    append_head_fields(out, response, request_id);
    out += "content-length: " + std::to_string(response.body.size()) + "\r\n";
    if (close) {
        out += "connection: close\r\n";
    } else if (http10_keep_alive) {
        out += "connection: keep-alive\r\n";
    }
    out += "\r\n";
    if (!head_only) out += response.body;
    return out;
}

std::string serialize_stream_head(const ApiResponse& response, const std::string& request_id,
                                  bool close, bool chunked) {
    std::string out;
    out.reserve(256);
    append_head_fields(out, response, request_id);
    if (chunked) out += "transfer-encoding: chunked\r\n";
    if (close || !chunked) out += "connection: close\r\n";
    out += "\r\n";
    return out;
}

std::string chunk_of(std::string_view part) {
    if (part.empty()) return {};
    static constexpr std::string_view kHex = "0123456789abcdef";
    std::string size;
    for (std::size_t n = part.size(); n != 0; n >>= 4) size.insert(size.begin(), kHex[n & 15]);
    std::string out;
    out.reserve(size.size() + part.size() + 4);
    out += size;
    out += "\r\n";
    out += part;
    out += "\r\n";
    return out;
}

}  // namespace duepay::api
