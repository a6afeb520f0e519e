#include "domain/money/token_amount.hpp"

#include <array>
#include <cstdint>
#include <limits>

namespace duepay::domain::money {

namespace {

__extension__ using U128 = unsigned __int128;

constexpr std::uint64_t kChunk =
    10'000'000'000'000'000'000ULL;  // 10^19, the largest power of 10 in 64 bits
constexpr std::size_t kChunkDigits = 19;
constexpr std::size_t kMaxDigits = 78;  // 2^256-1 has 78 decimal digits

// Little-endian 64-bit limbs of a uint256, so the hot paths below run on plain integers.
using Limbs = std::array<std::uint64_t, 4>;

Limbs to_limbs(const uint256& v) {
    Limbs out{};
    uint256 x = v;
    for (auto& limb : out) {
        limb = static_cast<std::uint64_t>(x & std::numeric_limits<std::uint64_t>::max());
        x >>= 64;
    }
    return out;
}

uint256 from_limbs(const Limbs& l) {
    uint256 v = l[3];
    for (int i = 2; i >= 0; --i) {
        v <<= 64;
        v |= l[static_cast<std::size_t>(i)];
    }
    return v;
}

Error invalid(std::string message) { return make_error("invalid_amount", std::move(message)); }

}  // namespace

Result<TokenAmount> parse_token_amount(std::string_view text) {
    if (text.empty()) return invalid("amount must not be empty");
    for (char c : text) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
            return invalid("amount must not contain whitespace");
    }
    if (text[0] == '-') return invalid("amount must not be negative or carry a sign");
    if (text[0] == '+') return invalid("amount must not carry a sign");
    for (char c : text) {
        if (c == '.' || c == ',')
            return invalid(
                "amount must be an integer in the token's smallest unit, without a fraction");
        if (c == 'e' || c == 'E')
            return invalid("amount must be a plain decimal integer, without an exponent");
        if (c < '0' || c > '9') return invalid("amount must contain decimal digits only");
    }
    if (text.size() > 1 && text[0] == '0') return invalid("amount must not have leading zeros");
    if (text.size() > kMaxDigits) return invalid("amount has more than 78 digits");

    if (text.size() <= kChunkDigits) {  // fast path: fits 64 bits
        std::uint64_t v = 0;
        for (char c : text) v = v * 10 + static_cast<std::uint64_t>(c - '0');
        return TokenAmount{uint256(v)};
    }
    // Accumulate 19-digit chunks into four limbs: limbs = limbs * 10^k + chunk.
    Limbs limbs{};
    std::size_t pos = 0;
    const std::size_t first =
        text.size() % kChunkDigits == 0 ? kChunkDigits : text.size() % kChunkDigits;
    std::size_t take = first;
    while (pos < text.size()) {
        std::uint64_t chunk = 0;
        std::uint64_t scale = 1;
        for (std::size_t i = 0; i < take; ++i) {
            chunk = chunk * 10 + static_cast<std::uint64_t>(text[pos + i] - '0');
            scale *= 10;
        }
        pos += take;
        take = kChunkDigits;
        U128 carry = chunk;
        for (auto& limb : limbs) {
            const U128 t = static_cast<U128>(limb) * scale + carry;
            limb = static_cast<std::uint64_t>(t);
            carry = t >> 64;
        }
        if (carry != 0) return invalid("amount is above 2^256-1");
    }
    return TokenAmount{from_limbs(limbs)};
}

Result<TokenAmount> parse_charge_amount(std::string_view text) {
    auto amount = parse_token_amount(text);
    if (!amount) return amount;
    if (amount->value == 0) return invalid("amount must be greater than zero");
    return amount;
}

void append_decimal(std::string& out, const uint256& v) {
    if (v <= std::numeric_limits<std::uint64_t>::max()) {  // fast path
        std::array<char, 20> buf;  // left uninitialised: written before it is read
        std::size_t n = 0;
        auto x = static_cast<std::uint64_t>(v);
        do {
            buf[19 - n++] = static_cast<char>('0' + x % 10);
            x /= 10;
        } while (x != 0);
        out.append(buf.data() + 20 - n, n);
        return;
    }
    Limbs limbs = to_limbs(v);
    // Repeated division by 10^19 yields the chunks least significant first.
    std::array<std::uint64_t, 5> chunks{};
    std::size_t n = 0;
    do {
        U128 rem = 0;
        for (int i = 3; i >= 0; --i) {
            const U128 cur = (rem << 64) | limbs[static_cast<std::size_t>(i)];
            limbs[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(cur / kChunk);
            rem = cur % kChunk;
        }
        chunks[n++] = static_cast<std::uint64_t>(rem);
    } while (limbs[0] != 0 || limbs[1] != 0 || limbs[2] != 0 || limbs[3] != 0);

    std::array<char, kChunkDigits> buf;  // left uninitialised: written before it is read
    // Most significant chunk without padding, the rest zero-padded to 19 digits.
    for (std::size_t k = n; k-- > 0;) {
        std::uint64_t c = chunks[k];
        std::size_t len = 0;
        do {
            buf[kChunkDigits - 1 - len++] = static_cast<char>('0' + c % 10);
            c /= 10;
        } while (c != 0);
        if (k != n - 1) {
            while (len < kChunkDigits) buf[kChunkDigits - 1 - len++] = '0';
        }
        out.append(buf.data() + kChunkDigits - len, len);
    }
}

std::string to_string(const TokenAmount& amount) {
    std::string out;
    append_decimal(out, amount.value);
    return out;
}

void append_units(std::string& out, const uint256& amount, unsigned decimals) {
    const std::size_t start = out.size();
    append_decimal(out, amount);
    place_decimal_point(out, start, decimals);
}

void place_decimal_point(std::string& out, std::size_t start, unsigned decimals) {
    if (decimals == 0) return;
    const std::size_t digits = out.size() - start;
    if (digits <= decimals) out.insert(start, decimals + 1 - digits, '0');
    // The fraction's trailing zeros dropped, then the point, if any fraction is left.
    const std::size_t point = out.size() - decimals;
    std::size_t end = out.size();
    while (end > point && out[end - 1] == '0') --end;
    out.resize(end);
    if (end > point) out.insert(point, 1, '.');
}

std::string format_units(const TokenAmount& amount, unsigned decimals) {
    std::string out;
    append_units(out, amount.value, decimals);
    return out;
}

}  // namespace duepay::domain::money
