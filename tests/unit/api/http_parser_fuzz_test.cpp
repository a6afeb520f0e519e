// Seeded mutation fuzzing of the HTTP edge's request-head parser (parse_request_head, ADR 0096,
// ADR 0204). The generator starts from valid heads (GET, POST with a body, HTTP/1.0, absolute-form,
// Expect, pipelined) and mutates them the way a hostile or broken client would: byte flips,
// insertions of the bytes the parser cares about (CR, LF, NUL, SP, HTAB, colon, DEL, non-ASCII,
// smuggling headers), deletions, truncations, duplicated slices, and huge counts (hundreds of
// fields, request lines and heads around the limits, long Content-Length digits, many empty
// lines). Half the cases run under the default limits, half under tight ones so that every limit
// is crossed often.
//
// Invariants, for every input:
// - the parser reads only the input: each input lives in a heap block of exactly its size, so an
//   ASan build (-DDUEPAY_SANITIZE=ON) fails on any read past it;
// - a refused head is the envelope (success false, an error text, meta.code) with a 4xx status,
//   or 501 transfer_encoding_not_supported / 505 http_version_not_supported, and its meta.code is
//   one the status may carry (docs/api-errors.md);
// - an accepted head ends with its blank line, head_bytes <= input size and <= max_head_bytes,
//   content_length <= max_body_bytes, a method and a path that starts with '/';
// - "need more" only while the input is within max_head_bytes: a head that cannot end within the
//   bounds is refused, never left pending;
// - fed in two pieces (split at every point of inputs up to 300 bytes, at 48 random points of
//   longer ones), the parser reaches the verdict it reaches at once: a verdict on the first piece
//   (accepted or refused) is the verdict on the whole, and "need more" on the first piece leaves
//   the decision to the whole;
// - every valid head, unmutated, is accepted.
// DUEPAY_FUZZ_SEED and DUEPAY_FUZZ_CASES change the seed and the count (default 4000 cases, a few
// seconds; the count is capped at 10,000,000).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/http/http_parser.hpp"

namespace duepay::api {
namespace {

using Kind = HeadResult::Kind;

const std::vector<std::string>& valid_heads() {
    static const std::vector<std::string> heads = {
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n",
        "GET /v1/charges?limit=10&status=paid HTTP/1.1\r\nHost: api.example\r\n"
        "X-API-Key: dp_test_abc\r\nAccept: */*\r\nX-Request-Id: req-1\r\n\r\n",
        "POST /v1/invoices HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Content-Length: 30\r\nConnection: keep-alive\r\n\r\n{\"chainId\":80002,\"amount\":\"1\"}",
        "PATCH /v1/project HTTP/1.1\r\nHost: [::1]:8080\r\nAuthorization: Bearer dp_test_abc\r\n"
        "X-API-Key: dp_test_abc\r\nContent-Length: 2, 2\r\n\r\n{}",
        "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "GET http://api.example:8080/v1/events?x=1#frag HTTP/1.1\r\nHost: api.example:8080\r\n\r\n",
        "\r\n\r\nPOST /v1/charges/0x42/refunds HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n"
        "Content-Length: 17\r\n\r\n{\"txHash\":\"0x00\"}",
        "GET /c/0x42?lang=th HTTP/1.1\r\nHost: 127.0.0.1:8081\r\nConnection: close\r\n\r\n"
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        "DELETE /v1/webhook-endpoints/we_1 HTTP/1.1\r\nHost: h\r\nX-Empty:\r\nX-Tab: a\tb\r\n\r\n",
    };
    return heads;
}

// The bytes the parser decides on, and whole fields that change a verdict.
const std::vector<std::string> kPieces = {
    "\r",
    "\n",
    "\r\n",
    "\r\n\r\n",
    std::string(1, '\0'),
    " ",
    "\t",
    ":",
    ",",
    "\x7f",
    "\xff",
    "\xc3\xa9",
    "\x16\x03\x01",
    "/",
    "?",
    "HTTP/1.1",
    "HTTP/2.0",
    "Transfer-Encoding: chunked\r\n",
    "Content-Length: 5\r\n",
    "Content-Length: -1\r\n",
    "Content-Length: 99999999999999999999\r\n",
    "Host: other\r\n",
    "Host: h:99999\r\n",
    "X-API-Key: other\r\n",
    "Authorization: Bearer x\r\n",
    " folded\r\n",
    "Connection: close\r\n",
    "Expect: 100-continue\r\n",
};

struct Input {
    std::string kind;
    std::string bytes;
};

std::string many_fields(std::size_t count, std::size_t value_size) {
    std::string out;
    for (std::size_t i = 0; i < count; ++i)
        out += "X-F" + std::to_string(i) + ": " + std::string(value_size, 'v') + "\r\n";
    return out;
}

Input generate(std::mt19937_64& rng, const HttpLimits& limits) {
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    const auto& heads = valid_heads();
    std::string bytes = heads[pick(heads.size())];
    const std::size_t blank = bytes.find("\r\n\r\n", 4) + 2;  // where a field may go
    switch (pick(14)) {
        case 0:
            return {"valid", bytes};
        case 1:  // many fields, around the count and size limits
            bytes.insert(
                blank, many_fields(limits.max_header_count - 3 + pick(8), 1 + pick(3) * pick(200)));
            return {"many fields", bytes};
        case 2: {  // a request line around its limit
            const std::size_t sp = bytes.find(' ', bytes.find('/'));
            bytes.insert(sp, std::string(limits.max_request_line - 40 + pick(80), 'a'));
            return {"long request line", bytes};
        }
        case 3:  // one field value around the head limit
            bytes.insert(
                blank,
                "X-Big: " + std::string(limits.max_head_bytes - 200 + pick(400), 'b') + "\r\n");
            return {"big field", bytes};
        case 4: {  // Content-Length of 1 to 30 digits, around the body limit
            std::string digits = pick(2) == 0 ? std::to_string(limits.max_body_bytes - 1 + pick(3))
                                              : std::string(1 + pick(30), '9');
            bytes.insert(blank, "Content-Length: " + digits + "\r\n");
            return {"content-length", bytes};
        }
        case 5: {  // empty lines before the request, around the 16 bytes allowed
            std::string lines;
            for (std::size_t k = pick(13); k > 0; --k) lines += "\r\n";
            return {"empty lines", lines + bytes};
        }
        case 6:
            bytes.resize(pick(bytes.size() + 1));
            return {"truncated", bytes};
        case 7: {  // the fields request smuggling is made of
            static const std::vector<std::string> fields = {
                "Transfer-Encoding: chunked\r\n",
                "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n",
                "Transfer-Encoding : chunked\r\n",
                "Transfer-Encoding:\tchunked, identity\r\n",
                "X-A: a\r\n Transfer-Encoding: chunked\r\n",
                "X-A: a\nTransfer-Encoding: chunked\r\n",
                "Content-Length: 5\r\nContent-Length: 6\r\n",
                "Content-Length: 5, 6\r\n",
                "Content-Length: +5\r\n",
                "Content-Length: 0x5\r\n",
                "Content-Length:\r\n",
                "Host: a\r\nHost: b\r\n",
            };
            bytes.insert(blank, fields[pick(fields.size())]);
            return {"smuggling", bytes};
        }
        case 8: {  // another HTTP-version
            static const std::vector<std::string> versions = {
                "HTTP/2.0", "HTTP/1.2", "HTTP/0.9", "HTTP/3", "http/1.1", "HTTP/1.1 ", "HTTP/", "",
            };
            const auto at = bytes.find("HTTP/1.");
            bytes.replace(at, 8, versions[pick(versions.size())]);
            return {"version", bytes};
        }
        default: {  // 1 to 8 byte-level edits
            const std::size_t edits = 1 + pick(8);
            for (std::size_t i = 0; i < edits; ++i) {
                const std::size_t at = pick(bytes.size() + 1);
                switch (pick(5)) {
                    case 0:
                        if (at < bytes.size()) bytes[at] = static_cast<char>(rng());
                        break;
                    case 1:
                        if (at < bytes.size()) bytes.erase(at, 1 + pick(4));
                        break;
                    case 2:
                    case 3:
                        bytes.insert(at, kPieces[pick(kPieces.size())]);
                        break;
                    default:
                        bytes.insert(at, bytes.substr(at, pick(bytes.size() - at + 1)));
                }
            }
            return {"mutated", bytes};
        }
    }
}

struct Envelope {
    bool ok = false;
    std::string code;
};

Envelope envelope_of(const ApiResponse& r) {
    rapidjson::Document d;
    d.Parse(r.body.c_str());
    Envelope e;
    if (d.HasParseError() || !d.IsObject() || !d.HasMember("success") || !d["success"].IsBool() ||
        d["success"].GetBool() || !d.HasMember("error") || !d["error"].IsString() ||
        !d.HasMember("meta") || !d["meta"].IsObject() || !d["meta"].HasMember("code") ||
        !d["meta"]["code"].IsString()) {
        return e;
    }
    e.ok = true;
    e.code = d["meta"]["code"].GetString();
    return e;
}

// The meta.code each status of the parser may carry (docs/api-errors.md).
const std::map<int, std::set<std::string>>& codes_by_status() {
    static const std::map<int, std::set<std::string>> codes = {
        {400,
         {"malformed_request", "invalid_host", "invalid_content_length", "ambiguous_credentials"}},
        {413, {"payload_too_large"}},
        {414, {"uri_too_long"}},
        {431, {"request_header_fields_too_large"}},
        {501, {"transfer_encoding_not_supported"}},
        {505, {"http_version_not_supported"}},
    };
    return codes;
}

// The parser over a heap block of exactly the input's size (no slack for a read past it to hide
// in).
HeadResult parse_exact(std::string_view bytes, const HttpLimits& limits) {
    auto block = std::make_unique<char[]>(bytes.size());
    std::copy(bytes.begin(), bytes.end(), block.get());
    return parse_request_head(std::string_view(block.get(), bytes.size()), limits);
}

// Checks one verdict on `bytes`; returns a description of the first broken invariant, or "".
std::string check(std::string_view bytes, const HeadResult& r, const HttpLimits& limits) {
    switch (r.kind) {
        case Kind::rejected: {
            const auto codes = codes_by_status().find(r.rejection.status);
            if (codes == codes_by_status().end())
                return "refused with status " + std::to_string(r.rejection.status);
            const auto envelope = envelope_of(r.rejection);
            if (!envelope.ok) return "refusal is not the envelope: " + r.rejection.body;
            if (codes->second.count(envelope.code) == 0)
                return "status " + std::to_string(r.rejection.status) + " with code " +
                       envelope.code;
            return "";
        }
        case Kind::complete: {
            const auto& head = r.head;
            if (head.head_bytes < 4 || head.head_bytes > bytes.size())
                return "head_bytes " + std::to_string(head.head_bytes) + " of " +
                       std::to_string(bytes.size());
            if (head.head_bytes > limits.max_head_bytes) return "head over max_head_bytes";
            if (bytes.substr(head.head_bytes - 4, 4) != "\r\n\r\n")
                return "head does not end with its blank line";
            if (head.content_length > limits.max_body_bytes) return "body over max_body_bytes";
            if (head.request.method.empty()) return "no method";
            if (head.request.path.empty() || head.request.path.front() != '/')
                return "path is not absolute: " + head.request.path;
            return "";
        }
        case Kind::incomplete:
            if (bytes.size() > limits.max_head_bytes)
                return "need more after " + std::to_string(bytes.size()) + " bytes";
            return "";
    }
    return "unknown kind";
}

// The same verdict: kind, and the status or the head.
std::string same_verdict(const HeadResult& a, const HeadResult& b) {
    if (a.kind != b.kind)
        return "kind " + std::to_string(static_cast<int>(a.kind)) + " vs " +
               std::to_string(static_cast<int>(b.kind));
    if (a.kind == Kind::rejected && a.rejection.status != b.rejection.status)
        return "status " + std::to_string(a.rejection.status) + " vs " +
               std::to_string(b.rejection.status);
    if (a.kind == Kind::complete &&
        (a.head.head_bytes != b.head.head_bytes || a.head.content_length != b.head.content_length ||
         a.head.request.method != b.head.request.method ||
         a.head.request.path != b.head.request.path ||
         a.head.request.query != b.head.request.query ||
         a.head.request.headers != b.head.request.headers ||
         a.head.keep_alive != b.head.keep_alive || a.head.http10 != b.head.http10 ||
         a.head.expect_continue != b.head.expect_continue)) {
        return "a different head";
    }
    return "";
}

std::string printable(std::string_view bytes) {
    std::string out;
    for (unsigned char c : bytes.substr(0, 300)) {
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            out += static_cast<char>(c);
        } else {
            static const char* hex = "0123456789abcdef";
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return bytes.size() > 300 ? out + "... (" + std::to_string(bytes.size()) + " bytes)" : out;
}

TEST(HttpParserFuzz, EveryMutatedHeadKeepsTheParsersInvariants) {
    const char* seed_env = std::getenv("DUEPAY_FUZZ_SEED");
    const char* cases_env = std::getenv("DUEPAY_FUZZ_CASES");
    const std::uint64_t seed = seed_env ? std::strtoull(seed_env, nullptr, 10) : 20261127;
    const std::size_t cases =
        std::min<std::size_t>(cases_env ? std::strtoull(cases_env, nullptr, 10) : 4000, 10000000);
    std::mt19937_64 rng(seed);
    HttpLimits tight;
    tight.max_request_line = 64;
    tight.max_head_bytes = 256;
    tight.max_header_count = 5;
    tight.max_body_bytes = 100;

    std::map<std::string, std::map<std::string, std::size_t>> verdicts;  // kind -> verdict -> n
    std::size_t splits = 0;
    for (std::size_t i = 0; i < cases; ++i) {
        const HttpLimits limits = i % 2 == 0 ? HttpLimits{} : tight;
        const auto input = generate(rng, limits);
        const std::string_view bytes = input.bytes;
        SCOPED_TRACE("case " + std::to_string(i) + " (" + input.kind + ", " +
                     (i % 2 == 0 ? "default" : "tight") + " limits): " + printable(bytes));
        const auto whole = parse_exact(bytes, limits);
        const auto broken = check(bytes, whole, limits);
        ASSERT_EQ(broken, "");
        if (input.kind == "valid") {
            ASSERT_EQ(whole.kind, Kind::complete);
        }
        verdicts[input.kind][whole.kind == Kind::complete   ? "accepted"
                             : whole.kind == Kind::rejected ? std::to_string(whole.rejection.status)
                                                            : "need more"]++;

        // Two pieces: the verdict on the first piece, if there is one, is the verdict on the whole.
        std::vector<std::size_t> points;
        if (bytes.size() <= 300) {
            for (std::size_t at = 0; at < bytes.size(); ++at) points.push_back(at);
        } else {
            for (int k = 0; k < 48; ++k) points.push_back(rng() % bytes.size());
        }
        for (const std::size_t at : points) {
            const auto first = parse_exact(bytes.substr(0, at), limits);
            ASSERT_EQ(check(bytes.substr(0, at), first, limits), "") << "first " << at << " bytes";
            ++splits;
            if (first.kind == Kind::incomplete) continue;
            ASSERT_EQ(same_verdict(first, whole), "")
                << "split after " << at << " bytes: " << printable(bytes.substr(0, at));
        }
    }
    std::cout << "[http parser fuzz] seed " << seed << ": " << cases << " heads, " << splits
              << " two-piece feeds, none crashed\n";
    for (const auto& [kind, counts] : verdicts) {
        std::cout << "[http parser fuzz]   " << kind << ":";
        for (const auto& [verdict, n] : counts) std::cout << " " << verdict << " " << n;
        std::cout << "\n";
    }
    // The generator reaches every verdict and every limit.
    std::set<std::string> seen;
    for (const auto& [kind, counts] : verdicts)
        for (const auto& [verdict, n] : counts) seen.insert(verdict);
    for (const char* verdict : {"accepted", "need more", "400", "413", "414", "431", "501", "505"})
        EXPECT_EQ(seen.count(verdict), 1u) << "no input got " << verdict;
}

}  // namespace
}  // namespace duepay::api
