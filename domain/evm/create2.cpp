#include "domain/evm/create2.hpp"

#include <algorithm>
#include <array>

#include "domain/evm/abi.hpp"
#include "domain/evm/keccak.hpp"

namespace duepay::domain::evm {

Bytes32 deposit_salt(const InvoiceId& invoice_id, const Address& merchant, std::uint16_t fee_bps) {
    return keccak256(
        abi_encode<3>({abi_word(invoice_id.bytes), abi_word(merchant), abi_word_u64(fee_bps)}));
}

Address create2_address(const Address& factory, const Bytes32& salt,
                        const Bytes32& init_code_hash) {
    std::array<std::uint8_t, 1 + 20 + 32 + 32> buf{};
    buf[0] = 0xff;
    auto it = std::copy(factory.bytes.begin(), factory.bytes.end(), buf.begin() + 1);
    it = std::copy(salt.begin(), salt.end(), it);
    std::copy(init_code_hash.begin(), init_code_hash.end(), it);
    const Bytes32 hash = keccak256(buf);
    Address out;
    std::copy(hash.begin() + 12, hash.end(), out.bytes.begin());
    return out;
}

}  // namespace duepay::domain::evm
