// Exchange rates as exact rationals and the fiat -> token conversion. Every step is big-integer
// arithmetic (Boost cpp_int); the only rounding is the final ceiling, in the merchant's favour.
#pragma once

#include <boost/multiprecision/cpp_int.hpp>
#include <string>
#include <string_view>

#include "domain/money/fiat.hpp"
#include "domain/result.hpp"
#include "domain/types.hpp"

namespace duepay::domain::money {

using BigInt = boost::multiprecision::cpp_int;

// A strictly positive rational num/den, always in lowest terms (so == compares values).
class Rational {
  public:
    Rational() = default;  // 1/1, so a struct holding a rate can be default-constructed
    // Reduces; returns an "invalid_rate" error unless num > 0 and den > 0.
    static Result<Rational> make(const BigInt& num, const BigInt& den);

    const BigInt& num() const { return num_; }
    const BigInt& den() const { return den_; }
    bool operator==(const Rational&) const = default;

  private:
    Rational(BigInt num, BigInt den) : num_(std::move(num)), den_(std::move(den)) {}
    BigInt num_ = 1;
    BigInt den_ = 1;
};

// A price-feed answer: answer / 10^decimals (e.g. Chainlink's int256 answer and decimals()).
// answer <= 0 or decimals > 77: code "invalid_rate".
Result<Rational> rate_from_answer(const BigInt& answer, unsigned decimals);

// "35.12" (positive decimal, no sign/exponent/whitespace, at most 78 digits) or "num/den" (two
// positive decimal integers, the form to_string uses for rates that have no finite decimal).
// Code "invalid_rate".
Result<Rational> parse_rate(std::string_view text);

// Exact text: a finite decimal when the denominator is 2^a*5^b ("35.12", "0.0285"), otherwise
// "num/den" in lowest terms ("1000/3"). parse_rate(to_string(r)) == r for every r.
std::string to_string(const Rational& rate);

// Cross rate: fiat per token = (USD per token) / (USD per fiat), exactly. With the THB/USD feed
// (USD per 1 THB) and a USDT/USD feed (USD per 1 USDT) this is THB per 1 USDT.
Rational fiat_per_token_via_usd(const Rational& usd_per_token, const Rational& usd_per_fiat);

inline constexpr unsigned kMaxBufferBps = 10000;
inline constexpr unsigned kMaxTokenDecimals = 77;

// token_amount = ceil(fiat * 10^decimals * (10000 + buffer_bps) / 10000 / fiat_per_token)
// where fiat is in whole currency units (minor_units / 100) and fiat_per_token is the price of
// ONE whole token. Errors: buffer_bps > 10000 ("invalid_buffer"), decimals > 77
// ("invalid_decimals"), a result above 2^256-1 ("amount_overflow").
Result<TokenAmount> fiat_to_token_amount(const FiatAmount& fiat, const Rational& fiat_per_token,
                                         unsigned token_decimals, unsigned buffer_bps);

// The fiat value of `units` (a signed amount of the smallest unit of a token with `decimals`; a
// refund is negative) at `fiat_per_token` (the price of ONE whole token):
// units * rate * 10^kFiatMinorDigits / 10^decimals, computed exactly, then rounded to the nearest
// minor unit, a half away from zero (0.005 -> 0.01, -0.005 -> -0.01), so a refund is worth
// exactly minus the same payment. `exact` when no rounding was needed. The one fiat rounding of
// duepay: the settlement report's rows (docs/reports.md, ADR 0240), the overview's paid volume and
// the exceptions page all use it.
struct FiatValue {
    BigInt minor_units;
    bool exact = true;
};
FiatValue fiat_value(const BigInt& units, unsigned decimals, const Rational& fiat_per_token);

// The text of a signed integer ("-12"). (Here, not in domain/reports: compiled alone in a small
// file, Boost's str() trips a false -Wrestrict in g++ 12 at -O3.)
std::string to_decimal(const BigInt& value);

// minor units as "1234.50" (a minus sign before a negative value).
std::string format_minor_units(const BigInt& minor_units);

}  // namespace duepay::domain::money
