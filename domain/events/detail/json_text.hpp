// Text helpers of the canonical event JSON (internal to domain/events): the lower-case hex the
// reader accepts, and the token shapes of ids. The string escaping (append_json_string) is
// public in event_json.hpp; it lives in json_text.cpp.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace duepay::domain::events::detail {

// Lower-case hex digit values; -1 for everything else (upper case included: canonical form).
inline constexpr std::array<std::int8_t, 256> kNibble = [] {
    std::array<std::int8_t, 256> t{};
    t.fill(-1);
    for (int c = '0'; c <= '9'; ++c)
        t[static_cast<std::size_t>(c)] = static_cast<std::int8_t>(c - '0');
    for (int c = 'a'; c <= 'f'; ++c)
        t[static_cast<std::size_t>(c)] = static_cast<std::int8_t>(c - 'a' + 10);
    return t;
}();

inline int lower_nibble(char c) { return kNibble[static_cast<unsigned char>(c)]; }

// Eight lower-case hex characters -> four bytes, SWAR on one 64-bit word (little-endian hosts).
// Per byte b (< 0x80): b >= lo  <=>  high bit of b + (0x80 - lo);  b > hi  <=>  high bit of
// b + (0x7f - hi); neither sum carries into the next byte.
inline bool hex8_to_4(const char* p, std::uint8_t* out) {
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    if (w & kHigh) return false;
    const auto in_range = [&](std::uint64_t lo, std::uint64_t hi) {
        return (w + (0x80 - lo) * kOnes) & ~(w + (0x7f - hi) * kOnes) & kHigh;
    };
    const std::uint64_t digit = in_range('0', '9');
    const std::uint64_t alpha = in_range('a', 'f');
    if ((digit | alpha) != kHigh) return false;
    const std::uint64_t nib =
        (w & 0x0f0f0f0f0f0f0f0fULL) + (alpha >> 7) * 9;  // 'a' (0x61) -> 1 + 9
    std::uint64_t z =
        ((nib << 4) | (nib >> 8)) & 0x00ff00ff00ff00ffULL;  // byte 2j = n[2j]<<4 | n[2j+1]
    z = (z | (z >> 8)) & 0x0000ffff0000ffffULL;
    z = (z | (z >> 16)) & 0xffffffffULL;
    const auto packed = static_cast<std::uint32_t>(z);
    std::memcpy(out, &packed, 4);
    return true;
}

// "0x" + 2*N lower-case hex digits -> N bytes; false for anything else.
template <std::size_t N>
bool parse_lower_hex(std::string_view s, std::array<std::uint8_t, N>& out) {
    static_assert(N % 4 == 0);
    if (s.size() != 2 + 2 * N || s[0] != '0' || s[1] != 'x') return false;
    if constexpr (std::endian::native == std::endian::little) {
        for (std::size_t i = 0; i < N; i += 4) {
            if (!hex8_to_4(s.data() + 2 + 2 * i, out.data() + i)) return false;
        }
        return true;
    } else {
        int bad = 0;
        for (std::size_t i = 0; i < N; ++i) {
            const int hi = lower_nibble(s[2 + 2 * i]);
            const int lo = lower_nibble(s[3 + 2 * i]);
            bad |= hi | lo;  // any -1 sets the sign bit
            out[i] = static_cast<std::uint8_t>(hi << 4 | lo);
        }
        return bad >= 0;
    }
}

// Ids are printable tokens: UUIDs, 0x hashes, "prefix:suffix" forms.
inline constexpr std::array<bool, 256> kIdChar = [] {
    std::array<bool, 256> t{};
    for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = true;
    for (int c = 'a'; c <= 'z'; ++c) t[static_cast<std::size_t>(c)] = true;
    for (int c = 'A'; c <= 'Z'; ++c) t[static_cast<std::size_t>(c)] = true;
    for (char c : {'-', '_', ':', '.'}) t[static_cast<unsigned char>(c)] = true;
    return t;
}();

// Every byte one of the id charset (letters, digits, - _ : .); says nothing about the length.
inline bool is_id_charset(std::string_view s) {
    bool ok = true;
    for (char c : s) ok &= kIdChar[static_cast<unsigned char>(c)];
    return ok;
}

// "rf_" + 24 lower-case hex digits (domain::charge::refund_id).
inline bool is_refund_id(std::string_view s) {
    bool ok = s.size() == 27 && s.starts_with("rf_");
    for (std::size_t i = 3; ok && i < s.size(); ++i)
        ok = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');
    return ok;
}

}  // namespace duepay::domain::events::detail
