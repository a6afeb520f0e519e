#include "domain/hex.hpp"

#include <string_view>

namespace duepay::domain {

int hex_digit_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string to_hex(std::span<const std::uint8_t> bytes) {
    static constexpr std::string_view kDigits = "0123456789abcdef";
    std::string out;
    out.resize(2 + bytes.size() * 2);
    out[0] = '0';
    out[1] = 'x';
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        out[2 + 2 * i] = kDigits[bytes[i] >> 4];
        out[3 + 2 * i] = kDigits[bytes[i] & 0x0f];
    }
    return out;
}

std::optional<Bytes> from_hex(std::string_view text) {
    if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
        text.remove_prefix(2);
    if (text.size() % 2 != 0) return std::nullopt;
    Bytes out(text.size() / 2);
    for (std::size_t i = 0; i < out.size(); ++i) {
        int hi = hex_digit_value(text[2 * i]);
        int lo = hex_digit_value(text[2 * i + 1]);
        if (hi < 0 || lo < 0) return std::nullopt;
        out[i] = static_cast<std::uint8_t>(hi << 4 | lo);
    }
    return out;
}

std::optional<InvoiceId> parse_invoice_id(std::string_view text) {
    auto bytes = from_hex_fixed<32>(text);
    if (!bytes) return std::nullopt;
    return InvoiceId{*bytes};
}

}  // namespace duepay::domain
