#include "domain/evm/address.hpp"

#include "domain/evm/keccak.hpp"
#include "domain/hex.hpp"
#include "domain/text.hpp"

namespace duepay::domain::evm {

namespace {

// The 40 digits with letters capitalised where the matching nibble of keccak256(lower-case
// digits) is >= 8.
std::string checksum_digits(const Address& address) {
    std::string digits = to_hex(address.bytes).substr(2);
    const Bytes32 hash = keccak256(std::string_view(digits));
    for (std::size_t i = 0; i < digits.size(); ++i) {
        const int hash_nibble = (i % 2 == 0) ? hash[i / 2] >> 4 : hash[i / 2] & 0x0f;
        if (digits[i] >= 'a' && hash_nibble >= 8)
            digits[i] = static_cast<char>(digits[i] - 'a' + 'A');
    }
    return digits;
}

}  // namespace

std::string to_checksum(const Address& address) { return "0x" + checksum_digits(address); }

Result<Address> parse_address(std::string_view text) {
    const std::string_view original = text;
    if (text.size() >= 2 && text[0] == '0' && text[1] == 'x') text.remove_prefix(2);
    if (text.size() != 40) {
        return make_error("invalid_address", "an address is 0x followed by 40 hex digits; got " +
                                                 std::to_string(original.size()) + " characters");
    }
    Address address;
    bool has_lower = false;
    bool has_upper = false;
    for (std::size_t i = 0; i < 40; ++i) {
        const char c = text[i];
        const int v = hex_digit_value(c);
        if (v < 0) {
            return make_error("invalid_address", "an address may contain only hex digits; found '" +
                                                     escape_for_log(std::string_view(&c, 1)) +
                                                     "' at position " +
                                                     std::to_string(i + (original.size() - 40)));
        }
        has_lower |= (c >= 'a' && c <= 'f');
        has_upper |= (c >= 'A' && c <= 'F');
        if (i % 2 == 0) {
            address.bytes[i / 2] = static_cast<std::uint8_t>(v << 4);
        } else {
            address.bytes[i / 2] |= static_cast<std::uint8_t>(v);
        }
    }
    // Never suggest the "right" checksum in the message: for a mistyped address it would bless
    // the typo.
    if (has_lower && has_upper && checksum_digits(address) != text) {
        return make_error("invalid_address_checksum",
                          "the address mixes upper and lower case but its EIP-55 checksum does not "
                          "match; a character is probably mistyped, so check the address");
    }
    return address;
}

}  // namespace duepay::domain::evm
