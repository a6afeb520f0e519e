// Token amounts as text: the decimal-integer strings of the API and the events (smallest unit,
// 0 .. 2^256-1). Canonical form only: no sign, no whitespace, no fraction, no leading zeros.
#pragma once

#include <string>
#include <string_view>

#include "domain/result.hpp"
#include "domain/types.hpp"

namespace duepay::domain::money {

// Any uint256 in canonical decimal form ("0" is allowed). Every rejection has code
// "invalid_amount" and a message naming the defect.
Result<TokenAmount> parse_token_amount(std::string_view text);

// As parse_token_amount, and also rejects zero: a charge must ask for something.
Result<TokenAmount> parse_charge_amount(std::string_view text);

// Canonical decimal form; parse_token_amount(to_string(a)) == a for every a.
std::string to_string(const TokenAmount& amount);

// Appends the decimal digits of v to out (no allocation beyond out's growth). Used by the event
// encoder on its hot path.
void append_decimal(std::string& out, const uint256& v);

// Whole tokens for people: `amount` / 10^decimals as exact decimal text, trailing fractional
// zeros dropped ("1250000", 6 -> "1.25"; "1000000", 6 -> "1"; "1", 6 -> "0.000001"). Digits only,
// never through a float; decimals 0..77.
std::string format_units(const TokenAmount& amount, unsigned decimals);

// Appends format_units(amount, decimals) to out, with no string of its own: for a page that
// writes hundreds of amounts (the dashboard's overview).
void append_units(std::string& out, const uint256& amount, unsigned decimals);

// The step append_units ends with, for digits written some other way (a sum wider than 256 bits):
// out[start..], the decimal digits of a count of the smallest unit, becomes that count over
// 10^decimals as format_units writes it.
void place_decimal_point(std::string& out, std::size_t start, unsigned decimals);

}  // namespace duepay::domain::money
