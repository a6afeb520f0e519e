#include "domain/evm/signature.hpp"

#include <string>

#include "domain/hex.hpp"

namespace duepay::domain::evm {

Result<Signature> parse_signature(std::string_view text) {
    if (text.size() != 132 || text.substr(0, 2) != "0x") {
        return make_error("invalid_signature",
                          "a signature is 0x followed by 130 hex digits (65 bytes r, s, v); got " +
                              std::to_string(text.size()) + " characters");
    }
    auto bytes = from_hex_fixed<65>(text);
    if (!bytes)
        return make_error("invalid_signature", "the signature contains a non-hex character");
    Signature sig{*bytes};
    std::uint8_t& v = sig.bytes[64];
    if (v == 0 || v == 1) v = static_cast<std::uint8_t>(v + 27);
    if (v != 27 && v != 28) {
        return make_error("invalid_signature",
                          "signature v must be 27 or 28 (or 0 or 1); got " + std::to_string(v));
    }
    return sig;
}

}  // namespace duepay::domain::evm
