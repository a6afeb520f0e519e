// Lower-case 0x-prefixed hex, the text form of bytes in JSON and JSON-RPC.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "domain/types.hpp"

namespace duepay::domain {

// The value of one hex digit of either case, or -1.
int hex_digit_value(char c);

// "0x" + two lower-case hex digits per byte.
std::string to_hex(std::span<const std::uint8_t> bytes);

// Accepts an optional 0x/0X prefix and an even number of hex digits of either case.
std::optional<Bytes> from_hex(std::string_view text);

// Exactly N bytes, else nullopt.
template <std::size_t N>
std::optional<std::array<std::uint8_t, N>> from_hex_fixed(std::string_view text) {
    auto bytes = from_hex(text);
    if (!bytes || bytes->size() != N) return std::nullopt;
    std::array<std::uint8_t, N> out{};
    std::copy(bytes->begin(), bytes->end(), out.begin());
    return out;
}

inline std::string to_hex(const InvoiceId& id) { return to_hex(id.bytes); }
std::optional<InvoiceId> parse_invoice_id(std::string_view text);

}  // namespace duepay::domain
