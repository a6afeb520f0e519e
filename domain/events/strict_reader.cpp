// The scalar readers of detail/strict_reader.hpp: each accepts only the canonical form and
// fails with a message that names the field.
#include "domain/events/detail/strict_reader.hpp"

#include "domain/events/detail/json_text.hpp"
#include "domain/money/token_amount.hpp"
#include "domain/text.hpp"

namespace duepay::domain::events::detail {

std::string Path::str() const {
    if (parent.empty()) return std::string(name);
    std::string s(parent);
    s += '.';
    s += name;
    return s;
}

void fail(const Path& at, std::string_view what) {
    throw DecodeError(at.str() + ": " + std::string(what));
}

std::uint64_t as_u64(const Value& v, const Path& at) {
    if (!v.IsUint64()) fail(at, "must be a non-negative integer");
    return v.GetUint64();
}

std::uint64_t as_u64_at_most(const Value& v, const Path& at, std::uint64_t max) {
    const std::uint64_t x = as_u64(v, at);
    if (x > max) fail(at, "must be at most " + std::to_string(max));
    return x;
}

std::uint32_t as_u32(const Value& v, const Path& at) {
    return static_cast<std::uint32_t>(
        as_u64_at_most(v, at, std::numeric_limits<std::uint32_t>::max()));
}

std::uint64_t as_dec_u64(const Value& v, const Path& at) {
    const auto s = as_string(v, at);
    if (s.empty() || s.size() > 20)
        fail(at, "must be a decimal-integer string of at most 20 digits");
    if (s.size() > 1 && s[0] == '0') fail(at, "must not have leading zeros");
    std::uint64_t x = 0;
    for (char c : s) {
        if (c < '0' || c > '9') fail(at, "must be a decimal-integer string");
        const auto d = static_cast<std::uint64_t>(c - '0');
        if (x > (std::numeric_limits<std::uint64_t>::max() - d) / 10)
            fail(at, "does not fit 64 bits");
        x = x * 10 + d;
    }
    return x;
}

TokenAmount as_amount(const Value& v, const Path& at) {
    auto r = money::parse_token_amount(as_string(v, at));
    if (!r) fail(at, r.error().message);
    return *r;
}

Address as_address(const Value& v, const Path& at) {
    Address a;
    if (!parse_lower_hex(as_string(v, at), a.bytes))
        fail(at, "must be a lower-case 0x address of 40 hex digits");
    return a;
}

Bytes32 as_bytes32(const Value& v, const Path& at) {
    Bytes32 b{};
    if (!parse_lower_hex(as_string(v, at), b)) fail(at, "must be lower-case 0x hex of 64 digits");
    return b;
}

std::string_view as_utf8(const Value& v, const Path& at) {
    const auto s = as_string(v, at);
    // The same rule as the API's (domain/text.hpp): what Postgres text and jsonb store.
    if (!is_storable_text(s)) fail(at, "must be valid UTF-8 without NUL characters");
    return s;
}

std::string_view as_text(const Value& v, const Path& at, std::size_t max_bytes) {
    const auto s = as_utf8(v, at);
    if (s.empty()) fail(at, "must not be empty");
    if (s.size() > max_bytes) fail(at, "must be at most " + std::to_string(max_bytes) + " bytes");
    return s;
}

std::string_view as_timestamp(const Value& v, const Path& at) {
    const auto s = as_string(v, at);
    if (!is_rfc3339_millis_utc(s))
        fail(at, "must be an RFC 3339 UTC time with milliseconds (2026-01-31T12:00:00.000Z)");
    return s;
}

std::string_view as_id(const Value& v, const Path& at) {
    const auto s = as_string(v, at);  // ASCII-only by the charset, so no UTF-8 check needed
    if (s.empty()) fail(at, "must not be empty");
    if (s.size() > 128) fail(at, "must be at most 128 bytes");
    if (!is_id_charset(s)) fail(at, "may contain only letters, digits and - _ : .");
    return s;
}

std::string_view as_refund_id(const Value& v, const Path& at) {
    const auto s = as_string(v, at);
    if (!is_refund_id(s)) fail(at, "must be \"rf_\" followed by 24 lower-case hex digits");
    return s;
}

}  // namespace duepay::domain::events::detail
