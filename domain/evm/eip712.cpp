#include "domain/evm/eip712.hpp"

#include <algorithm>

#include "domain/evm/abi.hpp"
#include "domain/evm/keccak.hpp"

namespace duepay::domain::evm {

namespace {

constexpr std::string_view kDomainType =
    "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)";

struct Constants {
    Bytes32 domain_type_hash = keccak256(kDomainType);
    Bytes32 intent_type_hash = keccak256(kPaymentIntentType);
    Bytes32 name_hash = keccak256(kDomainName);
    Bytes32 version_hash = keccak256(kDomainVersion);
};

const Constants& constants() {
    static const Constants c;
    return c;
}

}  // namespace

Bytes32 type_hash(std::string_view encode_type) { return keccak256(encode_type); }

const Bytes32& payment_intent_type_hash() { return constants().intent_type_hash; }

namespace {

Bytes32 domain_separator_from_hashes(const Bytes32& name_hash, const Bytes32& version_hash,
                                     ChainId chain_id, const Address& verifying_contract) {
    const auto encoded =
        abi_encode<5>({constants().domain_type_hash, name_hash, version_hash,
                       abi_word_u64(chain_id.value), abi_word(verifying_contract)});
    return keccak256(encoded);
}

}  // namespace

Bytes32 domain_separator(std::string_view name, std::string_view version, ChainId chain_id,
                         const Address& verifying_contract) {
    return domain_separator_from_hashes(keccak256(name), keccak256(version), chain_id,
                                        verifying_contract);
}

Bytes32 domain_separator(const Eip712Domain& domain) {
    return domain_separator_from_hashes(constants().name_hash, constants().version_hash,
                                        domain.chain_id, domain.verifying_contract);
}

Bytes32 intent_struct_hash(const PaymentIntent& intent) {
    const auto encoded = abi_encode<7>(
        {constants().intent_type_hash, abi_word(intent.invoice_id.bytes), abi_word(intent.merchant),
         abi_word(intent.token), abi_word(intent.amount.value), abi_word_u64(intent.fee_bps),
         abi_word(intent.deadline)});
    return keccak256(encoded);
}

Bytes32 typed_data_digest(const Bytes32& domain_separator, const Bytes32& struct_hash) {
    std::array<std::uint8_t, 66> buf{};
    buf[0] = 0x19;
    buf[1] = 0x01;
    std::copy(domain_separator.begin(), domain_separator.end(), buf.begin() + 2);
    std::copy(struct_hash.begin(), struct_hash.end(), buf.begin() + 34);
    return keccak256(buf);
}

Bytes32 intent_digest(const Eip712Domain& domain, const PaymentIntent& intent) {
    return typed_data_digest(domain_separator(domain), intent_struct_hash(intent));
}

Bytes32 intent_digest(const Bytes32& domain_separator, const PaymentIntent& intent) {
    return typed_data_digest(domain_separator, intent_struct_hash(intent));
}

}  // namespace duepay::domain::evm
