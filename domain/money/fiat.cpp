#include "domain/money/fiat.hpp"

#include "domain/money/fiat_symbol.hpp"

namespace duepay::domain::money {

namespace {
Error invalid(std::string message) { return make_error("invalid_fiat_amount", std::move(message)); }
bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
}  // namespace

Result<FiatCurrency> parse_fiat_currency(std::string_view text) {
    if (text == "THB") return FiatCurrency::THB;
    if (text == "USD") return FiatCurrency::USD;
    return make_error("unsupported_currency", "fiat currency must be THB or USD");
}

std::string_view to_string(FiatCurrency currency) {
    return currency == FiatCurrency::THB ? "THB" : "USD";
}

std::string_view currency_symbol(FiatCurrency currency) {
    return currency == FiatCurrency::THB ? "\u0e3f" : "$";
}

Result<FiatAmount> parse_fiat_amount(FiatCurrency currency, std::string_view text) {
    if (text.empty()) return invalid("fiat amount must not be empty");
    for (char c : text) {
        if (is_space(c)) return invalid("fiat amount must not contain whitespace");
    }
    if (text[0] == '-' || text[0] == '+') return invalid("fiat amount must not carry a sign");
    for (char c : text) {
        if (c == 'e' || c == 'E')
            return invalid("fiat amount must be a plain decimal, without an exponent");
        if ((c < '0' || c > '9') && c != '.')
            return invalid("fiat amount must contain decimal digits and at most one '.'");
    }
    const auto dot = text.find('.');
    std::string_view int_part = text.substr(0, dot);
    std::string_view frac_part =
        dot == std::string_view::npos ? std::string_view{} : text.substr(dot + 1);
    if (dot != std::string_view::npos && frac_part.find('.') != std::string_view::npos)
        return invalid("fiat amount must contain at most one '.'");
    if (int_part.empty()) return invalid("fiat amount needs digits before the '.'");
    if (dot != std::string_view::npos && frac_part.empty())
        return invalid("fiat amount needs digits after the '.'");
    if (frac_part.size() > kFiatMinorDigits)
        return invalid("fiat amount has more than 2 fraction digits (the smallest unit is 0.01)");
    if (int_part.size() > 1 && int_part[0] == '0')
        return invalid("fiat amount must not have leading zeros");
    if (int_part.size() > kFiatMaxIntegerDigits)
        return invalid("fiat amount is too large (at most 12 integer digits)");

    std::uint64_t minor = 0;
    for (char c : int_part) minor = minor * 10 + static_cast<std::uint64_t>(c - '0');
    for (std::size_t i = 0; i < kFiatMinorDigits; ++i) {
        minor = minor * 10 +
                (i < frac_part.size() ? static_cast<std::uint64_t>(frac_part[i] - '0') : 0);
    }
    if (minor == 0) return invalid("fiat amount must be greater than zero");
    return FiatAmount{currency, minor};
}

std::string to_string(const FiatAmount& amount) {
    std::string out = std::to_string(amount.minor_units / 100);
    const auto cents = amount.minor_units % 100;
    out.push_back('.');
    out.push_back(static_cast<char>('0' + cents / 10));
    out.push_back(static_cast<char>('0' + cents % 10));
    return out;
}

}  // namespace duepay::domain::money
