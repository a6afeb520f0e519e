#include "domain/money/rate.hpp"

#include <array>
#include <boost/multiprecision/integer.hpp>
#include <limits>
#include <numeric>
#include <optional>

#include "domain/money/token_amount.hpp"

namespace duepay::domain::money {

namespace {

Error invalid_rate(std::string message) { return make_error("invalid_rate", std::move(message)); }

const BigInt kU64Max = std::numeric_limits<std::uint64_t>::max();

// Decimal digits (at most 19) as uint64; the caller checked they are digits.
std::uint64_t small_digits(std::string_view s) {
    std::uint64_t r = 0;
    for (char c : s) r = r * 10 + static_cast<std::uint64_t>(c - '0');
    return r;
}

BigInt pow10(unsigned n) {
    static constexpr std::array<std::uint64_t, 20> kSmall = {1ULL,
                                                             10ULL,
                                                             100ULL,
                                                             1000ULL,
                                                             10000ULL,
                                                             100000ULL,
                                                             1000000ULL,
                                                             10000000ULL,
                                                             100000000ULL,
                                                             1000000000ULL,
                                                             10000000000ULL,
                                                             100000000000ULL,
                                                             1000000000000ULL,
                                                             10000000000000ULL,
                                                             100000000000000ULL,
                                                             1000000000000000ULL,
                                                             10000000000000000ULL,
                                                             100000000000000000ULL,
                                                             1000000000000000000ULL,
                                                             10000000000000000000ULL};
    if (n < std::size(kSmall)) return BigInt(kSmall[n]);
    BigInt r = 1;
    for (unsigned i = 0; i < n; ++i) r *= 10;
    return r;
}

bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
    }
    return true;
}

BigInt digits_to_int(std::string_view s) {
    if (s.size() <= 19) return BigInt(small_digits(s));
    BigInt r = 0;
    for (char c : s) r = r * 10 + (c - '0');
    return r;
}

const uint256 kMaxUint256 = ~uint256(0);

}  // namespace

Result<Rational> Rational::make(const BigInt& num, const BigInt& den) {
    if (den <= 0) return invalid_rate("rate denominator must be positive");
    if (num <= 0) return invalid_rate("rate must be greater than zero");
    if (num <= kU64Max && den <= kU64Max) {  // fast path: feed answers and decimal rates
        const auto n = num.convert_to<std::uint64_t>();
        const auto d = den.convert_to<std::uint64_t>();
        const std::uint64_t g = std::gcd(n, d);
        return Rational(BigInt(n / g), BigInt(d / g));
    }
    BigInt g = boost::multiprecision::gcd(num, den);
    return Rational(num / g, den / g);
}

Result<Rational> rate_from_answer(const BigInt& answer, unsigned decimals) {
    if (decimals > kMaxTokenDecimals) return invalid_rate("rate decimals must be at most 77");
    return Rational::make(answer, pow10(decimals));
}

Result<Rational> parse_rate(std::string_view text) {
    if (text.empty()) return invalid_rate("rate must not be empty");
    if (text.size() > 160) return invalid_rate("rate is too long");
    if (const auto slash = text.find('/'); slash != std::string_view::npos) {
        auto num = text.substr(0, slash);
        auto den = text.substr(slash + 1);
        if (!all_digits(num) || !all_digits(den))
            return invalid_rate("rate fraction must be <digits>/<digits>");
        if ((num.size() > 1 && num[0] == '0') || (den.size() > 1 && den[0] == '0'))
            return invalid_rate("rate must not have leading zeros");
        return Rational::make(digits_to_int(num), digits_to_int(den));
    }
    const auto dot = text.find('.');
    auto int_part = text.substr(0, dot);
    auto frac_part = dot == std::string_view::npos ? std::string_view{} : text.substr(dot + 1);
    if (!all_digits(int_part)) return invalid_rate("rate must be a positive decimal");
    if (dot != std::string_view::npos && !all_digits(frac_part))
        return invalid_rate("rate must be a positive decimal");
    if (int_part.size() > 1 && int_part[0] == '0')
        return invalid_rate("rate must not have leading zeros");
    if (int_part.size() + frac_part.size() > 78)
        return invalid_rate("rate has more than 78 digits");
    BigInt num = digits_to_int(int_part) * pow10(static_cast<unsigned>(frac_part.size())) +
                 digits_to_int(frac_part);
    return Rational::make(num, pow10(static_cast<unsigned>(frac_part.size())));
}

std::string to_string(const Rational& rate) {
    if (rate.num() <= kU64Max && rate.den() <= kU64Max) {
        // Fast path on machine integers (same output as the general path below).
        const auto num = rate.num().convert_to<std::uint64_t>();
        auto d = rate.den().convert_to<std::uint64_t>();
        unsigned twos = 0, fives = 0;
        while (d % 2 == 0) {
            d /= 2;
            ++twos;
        }
        while (d % 5 == 0) {
            d /= 5;
            ++fives;
        }
        if (d != 1)
            return std::to_string(num) + "/" +
                   std::to_string(rate.den().convert_to<std::uint64_t>());
        const unsigned scale = std::max(twos, fives);
        if (scale <= 19) {
            __extension__ using U128 = unsigned __int128;
            const std::uint64_t factor =
                pow10(scale).convert_to<std::uint64_t>() / rate.den().convert_to<std::uint64_t>();
            const U128 scaled = static_cast<U128>(num) * factor;
            if ((scaled >> 64) == 0) {
                std::string digits = std::to_string(static_cast<std::uint64_t>(scaled));
                if (scale == 0) return digits;
                if (digits.size() <= scale) digits.insert(0, scale + 1 - digits.size(), '0');
                digits.insert(digits.size() - scale, 1, '.');
                return digits;
            }
        }
    }
    // Finite decimal iff den = 2^a * 5^b; then scale to 10^max(a,b).
    BigInt d = rate.den();
    unsigned twos = 0, fives = 0;
    while (d % 2 == 0) {
        d /= 2;
        ++twos;
    }
    while (d % 5 == 0) {
        d /= 5;
        ++fives;
    }
    if (d != 1) return rate.num().str() + "/" + rate.den().str();
    const unsigned scale = std::max(twos, fives);
    const BigInt scaled = rate.num() * (pow10(scale) / rate.den());
    std::string digits = scaled.str();
    if (scale == 0) return digits;
    if (digits.size() <= scale) digits.insert(0, scale + 1 - digits.size(), '0');
    digits.insert(digits.size() - scale, 1, '.');
    // Lowest terms means the last fraction digit is never 0, so the text is canonical.
    return digits;
}

Rational fiat_per_token_via_usd(const Rational& usd_per_token, const Rational& usd_per_fiat) {
    // (a/b) / (c/d) = (a*d) / (b*c); both inputs are positive, so make() cannot fail.
    return Rational::make(usd_per_token.num() * usd_per_fiat.den(),
                          usd_per_token.den() * usd_per_fiat.num())
        .value();
}

Result<TokenAmount> fiat_to_token_amount(const FiatAmount& fiat, const Rational& fiat_per_token,
                                         unsigned token_decimals, unsigned buffer_bps) {
    if (buffer_bps > kMaxBufferBps)
        return make_error("invalid_buffer", "buffer must be at most 10000 bps");
    if (token_decimals > kMaxTokenDecimals)
        return make_error("invalid_decimals", "token decimals must be at most 77");
    // fiat = minor / 100; rate = num / den.
    // token = minor/100 * 10^dec * (10000+buf)/10000 / (num/den)
    //       = minor * 10^dec * (10000+buf) * den / (100 * 10000 * num)
    const BigInt numerator = BigInt(fiat.minor_units) * pow10(token_decimals) *
                             (kMaxBufferBps + buffer_bps) * fiat_per_token.den();
    const BigInt denominator = BigInt(100) * kMaxBufferBps * fiat_per_token.num();
    BigInt q = numerator / denominator;
    if (q * denominator != numerator) q += 1;  // ceiling: round in the merchant's favour
    if (q > BigInt(kMaxUint256))
        return make_error("amount_overflow", "converted token amount is above 2^256-1");
    return TokenAmount{static_cast<uint256>(q)};
}

namespace {

__extension__ using U128 = unsigned __int128;

// fiat_value on machine integers, when |units|, the rate's terms and 10^decimals fit in 64 bits,
// the numerator in 128 and the result in 64 (a stablecoin's amount at any quoted rate): the same
// arithmetic without cpp_int's allocations and long division. nullopt: the caller takes the
// general path.
std::optional<FiatValue> small_fiat_value(const BigInt& units, bool negative, unsigned decimals,
                                          const Rational& rate) {
    constexpr unsigned kMaxSmallDecimals = 19;
    if (decimals > kMaxSmallDecimals || rate.num() > kU64Max || rate.den() > kU64Max) {
        return std::nullopt;
    }
    if (negative ? units < -kU64Max : units > kU64Max) return std::nullopt;
    const auto magnitude =
        negative ? BigInt(-units).convert_to<std::uint64_t>() : units.convert_to<std::uint64_t>();
    U128 num = static_cast<U128>(magnitude) * rate.num().convert_to<std::uint64_t>();
    constexpr std::uint64_t kMinorScale = 100;  // 10^kFiatMinorDigits
    static_assert(kFiatMinorDigits == 2);
    if (__builtin_mul_overflow(num, kMinorScale, &num)) return std::nullopt;
    const U128 den = static_cast<U128>(rate.den().convert_to<std::uint64_t>()) *
                     pow10(decimals).convert_to<std::uint64_t>();
    U128 minor = num / den;
    const U128 rest = num % den;
    if (rest >= den - rest) minor += 1;  // rest * 2 >= den, without the overflow
    if ((minor >> 64) != 0) return std::nullopt;
    FiatValue out;
    out.exact = rest == 0;
    out.minor_units = static_cast<std::uint64_t>(minor);
    if (negative) out.minor_units = -out.minor_units;
    return out;
}

}  // namespace

FiatValue fiat_value(const BigInt& units, unsigned decimals, const Rational& fiat_per_token) {
    // |minor| = |units| * num * 10^minor_digits / (10^decimals * den), rounded half up; the sign
    // goes back on afterwards, which makes the whole a half away from zero.
    const bool negative = units < 0;
    if (auto small = small_fiat_value(units, negative, decimals, fiat_per_token)) return *small;
    const BigInt den = fiat_per_token.den() * pow10(decimals);
    const BigInt num =
        (negative ? BigInt(-units) : units) * fiat_per_token.num() * pow10(kFiatMinorDigits);
    FiatValue out;
    out.minor_units = num / den;
    const BigInt rest = num % den;
    out.exact = rest == 0;
    if (rest * 2 >= den) out.minor_units += 1;
    if (negative) out.minor_units = -out.minor_units;
    return out;
}

std::string to_decimal(const BigInt& value) { return value.str(); }

std::string format_minor_units(const BigInt& minor_units) {
    const bool negative = minor_units < 0;
    const BigInt v = negative ? BigInt(-minor_units) : minor_units;
    // Below 2^64 (any real amount) the digits come from append_decimal, not cpp_int's str().
    std::string digits;
    if (v <= kU64Max) {
        append_decimal(digits, uint256(v.convert_to<std::uint64_t>()));
    } else {
        digits = v.str();
    }
    while (digits.size() <= kFiatMinorDigits) digits.insert(digits.begin(), '0');
    digits.insert(digits.end() - kFiatMinorDigits, '.');
    return negative ? "-" + digits : digits;
}

}  // namespace duepay::domain::money
