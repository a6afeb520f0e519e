// The HTTP/1.1 request head parser of our listeners (HttpEdge), pure so it is unit-tested: it
// reads the bytes received so far and says "need more", "this request, head complete" or "reject
// with this envelope". It is strict on purpose (docs/adr/0096): CRLF line ends, one request-line
// shape, token header names, no control bytes, one Host, one Content-Length of digits, no
// Transfer-Encoding, and hard bounds on the request line, the head and the header count, so a
// malformed or oversized request costs a bounded scan and gets a 4xx/5xx in the envelope.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "api/http/api_types.hpp"

namespace duepay::api {

struct HttpLimits {
    std::size_t max_request_line = 8UL * 1024;  // longer: 414 uri_too_long
    std::size_t max_head_bytes = 16UL * 1024;   // request line + headers + blank line; else 431
    std::size_t max_header_count = 100;         // else 431
    std::size_t max_body_bytes = 64UL * 1024;   // Content-Length above it: 413 (ADR 0160)
};

struct ParsedHead {
    ApiRequest request;          // method, path (no query), headers (lower-case names); body empty
    std::size_t head_bytes = 0;  // up to and including the blank line
    std::size_t content_length = 0;
    bool http10 = false;
    bool keep_alive = true;  // HTTP/1.1 unless "connection: close"; HTTP/1.0 only with keep-alive
    bool expect_continue = false;
};

struct HeadResult {
    enum class Kind { incomplete, complete, rejected };
    Kind kind = Kind::incomplete;
    ParsedHead head;        // when complete; when rejected after a whole head, its headers
    ApiResponse rejection;  // when rejected: the envelope with its status and meta.code
};

// `buffer` starts at the first byte of a request. Looks at no more than the limits allow, so the
// cost of a call is bounded by max_head_bytes whatever the buffer holds.
HeadResult parse_request_head(std::string_view buffer, const HttpLimits& limits);

// The bytes of a response: status line, content-type (application/json unless the response sets
// one), x-request-id, the response's headers, content-length, connection, then the body (not for
// HEAD).
std::string serialize_response(const ApiResponse& response, const std::string& request_id,
                               bool close, bool http10_keep_alive, bool head_only);

// The head of a streamed answer (response.stream set): as serialize_response's, but instead of a
// content-length `transfer-encoding: chunked`, or, when `chunked` is false (an HTTP/1.0 client),
// neither and `connection: close` (the body ends with the connection). No body: the edge sends
// response.body and the producer's parts after it (chunk_of).
std::string serialize_stream_head(const ApiResponse& response, const std::string& request_id,
                                  bool close, bool chunked);

// One chunk of a chunked body (RFC 9112 7.1): the size in hex, CRLF, the bytes, CRLF; nothing
// for an empty part (a zero-size chunk would end the body).
std::string chunk_of(std::string_view part);

// The end of a chunked body: the zero-size chunk and an empty trailer.
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

}  // namespace duepay::api
