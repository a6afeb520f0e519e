#include "domain/evm/rlp.hpp"

namespace duepay::domain::evm {
namespace {

Bytes be_bytes(std::uint64_t n) {
    Bytes out;
    while (n > 0) {
        out.insert(out.begin(), static_cast<std::uint8_t>(n & 0xff));
        n >>= 8;
    }
    return out;
}

Bytes with_prefix(std::uint8_t short_base, std::uint8_t long_base,
                  std::span<const std::uint8_t> payload) {
    Bytes out;
    if (payload.size() <= 55) {
        out.push_back(static_cast<std::uint8_t>(short_base + payload.size()));
    } else {
        const Bytes len = be_bytes(payload.size());
        out.push_back(static_cast<std::uint8_t>(long_base + len.size()));
        out.insert(out.end(), len.begin(), len.end());
    }
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

}  // namespace

Bytes rlp_bytes(std::span<const std::uint8_t> bytes) {
    if (bytes.size() == 1 && bytes[0] < 0x80) return Bytes{bytes[0]};
    return with_prefix(0x80, 0xb7, bytes);
}

Bytes rlp_uint(const uint256& value) {
    Bytes be;
    uint256 v = value;
    while (v > 0) {
        be.insert(be.begin(), static_cast<std::uint8_t>(static_cast<unsigned>(v & 0xff)));
        v >>= 8;
    }
    return rlp_bytes(be);
}

Bytes rlp_list(std::span<const Bytes> encoded_items) {
    Bytes payload;
    for (const auto& item : encoded_items) payload.insert(payload.end(), item.begin(), item.end());
    return with_prefix(0xc0, 0xf7, payload);
}

}  // namespace duepay::domain::evm
