#include "domain/text.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace duepay::domain {

bool is_valid_utf8(std::string_view s) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const auto* end = p + s.size();
    while (p < end) {
        // ASCII fast path, 8 bytes at a time.
        while (end - p >= 8) {
            std::uint64_t word;
            std::memcpy(&word, p, 8);
            if (word & 0x8080808080808080ULL) break;
            p += 8;
        }
        if (p == end) break;
        const unsigned c = *p;
        if (c < 0x80) {
            ++p;
            continue;
        }
        std::size_t n;
        unsigned lo = 0x80, hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf)
            n = 1;
        else if (c == 0xe0)
            n = 2, lo = 0xa0;  // no overlong 3-byte forms
        else if (c == 0xed)
            n = 2, hi = 0x9f;  // no surrogates
        else if (c >= 0xe1 && c <= 0xef)
            n = 2;
        else if (c == 0xf0)
            n = 3, lo = 0x90;  // no overlong 4-byte forms
        else if (c == 0xf4)
            n = 3, hi = 0x8f;  // nothing above U+10FFFF
        else if (c >= 0xf1 && c <= 0xf3)
            n = 3;
        else
            return false;
        if (static_cast<std::size_t>(end - p) <= n) return false;
        if (p[1] < lo || p[1] > hi) return false;
        for (std::size_t i = 2; i <= n; ++i) {
            if (p[i] < 0x80 || p[i] > 0xbf) return false;
        }
        p += n + 1;
    }
    return true;
}

bool is_storable_text(std::string_view s) {
    return s.find('\0') == std::string_view::npos && is_valid_utf8(s);
}

std::size_t utf8_code_points(std::string_view s) {
    std::size_t n = 0;
    for (char c : s) n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
    return n;
}

std::string escape_for_log(std::string_view s, std::size_t max_bytes) {
    static constexpr std::string_view kHex = "0123456789abcdef";
    std::string out;
    const std::size_t shown = s.size() < max_bytes ? s.size() : max_bytes;
    out.reserve(shown + 8);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            out += static_cast<char>(c);
        } else {
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 0xf];
        }
    }
    if (shown < s.size()) out += "...";
    return out;
}

std::string escape_html(std::string_view s) {
    // The runs between special bytes are appended whole, found by a table: a page escapes tens
    // of kB of ids and amounts, nearly all of it plain.
    static constexpr auto kSpecial = [] {
        std::array<bool, 256> t{};
        for (const unsigned char c : std::string_view("&<>\"'")) t[c] = true;
        return t;
    }();
    std::string out;
    out.reserve(s.size() + 16);
    std::size_t from = 0;
    for (std::size_t at = 0; at < s.size(); ++at) {
        const auto c = static_cast<unsigned char>(s[at]);
        if (!kSpecial[c]) continue;
        out.append(s.substr(from, at - from));
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += "&#39;";
        }
        from = at + 1;
    }
    out.append(s.substr(from));
    return out;
}

}  // namespace duepay::domain
