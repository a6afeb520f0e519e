// Text admitted into events and the read store (ADR 0043): strict UTF-8 (no overlong forms, no
// UTF-16 surrogates, nothing above U+10FFFF) and no NUL, which Postgres `text` and `jsonb` refuse.
// One rule for the API request, the event codec and the projection, so a create can never append
// an event that a consumer cannot apply. Lengths are counted in code points, never bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace duepay::domain {

// True when `s` is strict UTF-8 (NUL allowed; see is_storable_text).
bool is_valid_utf8(std::string_view s);

// True when `s` is strict UTF-8 without U+0000.
bool is_storable_text(std::string_view s);

// Code points in `s`, which must be valid UTF-8 (counts lead bytes).
std::size_t utf8_code_points(std::string_view s);

// `s` safe to print in a log line or an error message: printable ASCII kept, every other byte
// (control characters, NUL, anything non-ASCII) as \xHH; at most `max_bytes` input bytes shown.
std::string escape_for_log(std::string_view s, std::size_t max_bytes = 200);

// `s` safe inside HTML or XML text and quoted attribute values: & < > " ' as entities, every
// other byte unchanged. One escaper for the checkout page and the QR code's SVG.
std::string escape_html(std::string_view s);

}  // namespace duepay::domain
