// Fiat prices: the currencies the API accepts and amounts held exactly as integer minor units
// (satang for THB, cents for USD). No floating point anywhere.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "domain/result.hpp"

namespace duepay::domain::money {

enum class FiatCurrency { THB, USD };

// "THB" or "USD" exactly (upper case); anything else: code "unsupported_currency".
Result<FiatCurrency> parse_fiat_currency(std::string_view text);
std::string_view to_string(FiatCurrency currency);

// Both currencies have 2 minor digits.
inline constexpr unsigned kFiatMinorDigits = 2;
// The integer part is bounded to 12 digits (below a trillion), far above any invoice.
inline constexpr unsigned kFiatMaxIntegerDigits = 12;

struct FiatAmount {
    FiatCurrency currency = FiatCurrency::USD;
    std::uint64_t minor_units = 0;  // 12345 = 123.45
    auto operator<=>(const FiatAmount&) const = default;
};

// "123", "123.4", "123.45", "0.50": strictly positive, at most 2 fraction digits, at most 12
// integer digits, no leading zeros ("0.5" is fine, "00.5" is not), no sign, no exponent, no
// whitespace, no bare "." at either end. Every rejection: code "invalid_fiat_amount".
Result<FiatAmount> parse_fiat_amount(FiatCurrency currency, std::string_view text);

// Canonical text with exactly 2 fraction digits: "123.40". parse_fiat_amount(to_string(a)) == a.
std::string to_string(const FiatAmount& amount);

}  // namespace duepay::domain::money
