// The canonical writer of event JSON (internal to domain/events): appends straight into a
// std::string, in chunks. (rapidjson::Writer was measured first: it copies byte by byte through
// the stream and spent ~2/3 of the encode time there; the canonical form is simple, and its
// string escaping is tested byte for byte against rapidjson::Writer.)
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "domain/events/event.hpp"
#include "domain/events/event_json.hpp"
#include "domain/money/token_amount.hpp"

namespace duepay::domain::events::detail {

class CanonicalWriter {
  public:
    explicit CanonicalWriter(std::string& out) : out_(out) {}

    // Keys are short literals: one append of ,"key":
    void key(std::string_view k) {
        std::array<char, 32> buf;         // left uninitialised: written before it is read
        if (k.size() > buf.size() - 4) {  // metadata keys (up to 40 of [A-Za-z0-9_.-])
            if (!first_) out_.push_back(',');
            first_ = false;
            word(k);
            out_.push_back(':');
            return;
        }
        std::size_t n = 0;
        if (!first_) buf[n++] = ',';
        first_ = false;
        buf[n++] = '"';
        std::memcpy(buf.data() + n, k.data(), k.size());
        n += k.size();
        buf[n++] = '"';
        buf[n++] = ':';
        out_.append(buf.data(), n);
    }
    void str(std::string_view s) { append_json_string(out_, s); }
    // Enum words and numbers ([a-z_.0-9/]): nothing to escape.
    void word(std::string_view s) {
        out_.push_back('"');
        out_.append(s);
        out_.push_back('"');
    }
    void null() { out_.append("null", 4); }
    void u64(std::uint64_t v) {
        std::array<char, 20> buf;  // left uninitialised: written before it is read
        std::size_t n = 0;
        do {
            buf[19 - n++] = static_cast<char>('0' + v % 10);
            v /= 10;
        } while (v != 0);
        out_.append(buf.data() + 20 - n, n);
    }
    void begin() {
        out_.push_back('{');
        first_ = true;
    }
    void end() {
        out_.push_back('}');
        first_ = false;
    }

    void hex(std::span<const std::uint8_t> bytes) {
        static constexpr std::string_view kHexDigits = "0123456789abcdef";
        std::array<char, 2 + 2 + 2 * 32> buf;  // left uninitialised: written before it is read
        buf[0] = '"';
        buf[1] = '0';
        buf[2] = 'x';
        for (std::size_t i = 0; i < bytes.size(); ++i) {
            buf[3 + 2 * i] = kHexDigits[bytes[i] >> 4];
            buf[4 + 2 * i] = kHexDigits[bytes[i] & 0x0f];
        }
        buf[3 + 2 * bytes.size()] = '"';
        out_.append(buf.data(), 4 + 2 * bytes.size());
    }
    void address(const Address& a) { hex(a.bytes); }
    void amount(const TokenAmount& a) {
        out_.push_back('"');
        money::append_decimal(out_, a.value);
        out_.push_back('"');
    }
    void dec_u64(std::uint64_t v) {
        out_.push_back('"');
        u64(v);
        out_.push_back('"');
    }

  private:
    std::string& out_;
    bool first_ = true;
};

}  // namespace duepay::domain::events::detail
