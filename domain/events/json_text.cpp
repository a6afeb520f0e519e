// append_json_string (event_json.hpp): the string escaping of the canonical writer.
#include <cstdint>
#include <cstring>
#include <string_view>

#include "domain/events/event_json.hpp"

namespace duepay::domain::events {

namespace {
// True if any byte of w is < 0x20, '"' or '\\' (SWAR: "has zero byte" after the transforms).
bool needs_escape(std::uint64_t w) {
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
    const auto has_zero = [](std::uint64_t x) { return (x - kOnes) & ~x & kHigh; };
    const std::uint64_t control = (w - 0x2020202020202020ULL) & ~w & kHigh;  // bytes < 0x20 (ASCII)
    return (control | has_zero(w ^ (0x22 * kOnes)) | has_zero(w ^ (0x5c * kOnes))) != 0;
}
}  // namespace

void append_json_string(std::string& out, std::string_view s) {
    static constexpr std::string_view kUpperHex = "0123456789ABCDEF";
    out.push_back('"');
    std::size_t clean_from = 0;
    std::size_t i = 0;
    // Clean 8-byte blocks are skipped whole; a block that may need escaping goes byte by byte.
    while (i + 8 <= s.size()) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        if (needs_escape(w)) break;
        i += 8;
    }
    for (; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        out.append(s.data() + clean_from, i - clean_from);
        clean_from = i + 1;
        out.push_back('\\');
        switch (c) {
            case '"':
                out.push_back('"');
                break;
            case '\\':
                out.push_back('\\');
                break;
            case '\b':
                out.push_back('b');
                break;
            case '\f':
                out.push_back('f');
                break;
            case '\n':
                out.push_back('n');
                break;
            case '\r':
                out.push_back('r');
                break;
            case '\t':
                out.push_back('t');
                break;
            default:
                out.append("u00", 3);
                out.push_back(kUpperHex[c >> 4]);
                out.push_back(kUpperHex[c & 0x0f]);
        }
    }
    out.append(s.data() + clean_from, s.size() - clean_from);
    out.push_back('"');
}

}  // namespace duepay::domain::events
