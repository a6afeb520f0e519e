// Small RapidJSON writer helpers shared by every JSON renderer (the api's charge JSON, the
// checkout's public JSON, `duepay admin`): a string member written with its length (never through
// strlen, so an embedded NUL can't truncate it) and an optional string member as null.
#pragma once

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace duepay::domain::json {

using BaseWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// True when RapidJSON's writer would escape a byte of s (a control character, '"' or '\\'; it
// passes every other byte through): eight bytes a step (exact as a yes/no answer).
inline bool needs_json_escape(std::string_view s) {
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
    constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t x;
        std::memcpy(&x, s.data() + i, 8);
        const std::uint64_t quote = x ^ (kOnes * '"');
        const std::uint64_t backslash = x ^ (kOnes * '\\');
        const std::uint64_t hits = ((x - kOnes * 0x20) & ~x) | ((quote - kOnes) & ~quote) |
                                   ((backslash - kOnes) & ~backslash);
        if ((hits & kHigh) != 0) return true;
    }
    for (; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == '"' || c == '\\') return true;
    }
    return false;
}

// RapidJSON's writer with the same output, whose strings, keys and raw values that need no
// escaping are copied in one memcpy instead of byte by byte (the byte loop was about a tenth of a
// list page's CPU: bench/RESULTS.md, "Moved from ADR 0194"; docs/adr/0194). Anything to escape
// goes through RapidJSON's own code.
class Writer : public BaseWriter {
  public:
    using BaseWriter::BaseWriter;
    using BaseWriter::Key;
    using BaseWriter::String;

    bool String(const Ch* s, rapidjson::SizeType length, bool copy = false) {
        if (needs_json_escape({s, length})) return BaseWriter::String(s, length, copy);
        Prefix(rapidjson::kStringType);
        char* out = os_->Push(length + 2);
        out[0] = '"';
        if (length != 0) std::memcpy(out + 1, s, length);
        out[length + 1] = '"';
        return EndValue(true);
    }
    bool String(const std::string& s) {
        return String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    }
    bool Key(const Ch* s, rapidjson::SizeType length, bool copy = false) {
        return String(s, length, copy);
    }
    bool Key(const Ch* s) { return String(s, static_cast<rapidjson::SizeType>(std::strlen(s))); }
    bool RawValue(const Ch* json, std::size_t length, rapidjson::Type type) {
        Prefix(type);
        if (length != 0) std::memcpy(os_->Push(length), json, length);
        return EndValue(true);
    }
};

// W: Writer, or RapidJSON's own writer (renderers that do not need the speed).
template <class W>
void str(W& w, const char* key, std::string_view value) {
    w.Key(key);
    w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

template <class W>
void opt_str(W& w, const char* key, const std::optional<std::string>& value) {
    w.Key(key);
    if (value) {
        w.String(value->data(), static_cast<rapidjson::SizeType>(value->size()));
    } else {
        w.Null();
    }
}

}  // namespace duepay::domain::json
