// EIP-712 typed-data hashing for the router's PaymentIntent. Pure: the digest is computed here,
// signing happens behind the Signer port (domain/ports/signer.hpp, docs/adr/0010).
//
//   domain:  EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)
//            with name "duepay", version "1", verifyingContract = the chain's router
//   type:    PaymentIntent(bytes32 invoiceId,address merchant,address token,uint256 amount,
//                          uint16 feeBps,uint256 deadline)   deadline in unix seconds
//   digest:  keccak256(0x19 0x01 ++ domainSeparator ++ hashStruct(intent))
#pragma once

#include <cstdint>
#include <string_view>

#include "domain/types.hpp"

namespace duepay::domain::evm {

struct PaymentIntent {
    InvoiceId invoice_id;
    Address merchant;
    Address token;
    TokenAmount amount;
    std::uint16_t fee_bps = 0;
    uint256 deadline = 0;  // unix seconds, compared on chain with block.timestamp
};

struct Eip712Domain {
    ChainId chain_id;
    Address verifying_contract;
};

inline constexpr std::string_view kDomainName = "duepay";
inline constexpr std::string_view kDomainVersion = "1";
inline constexpr std::string_view kPaymentIntentType =
    "PaymentIntent(bytes32 invoiceId,address merchant,address token,uint256 amount,uint16 feeBps,"
    "uint256 deadline)";

// typeHash = keccak256(encodeType); the type hashes are computed once per process.
Bytes32 type_hash(std::string_view encode_type);
const Bytes32& payment_intent_type_hash();

// The generic EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)
// separator; exposed so the EIP's own examples can check it.
Bytes32 domain_separator(std::string_view name, std::string_view version, ChainId chain_id,
                         const Address& verifying_contract);
// The duepay domain (name "duepay", version "1").
Bytes32 domain_separator(const Eip712Domain& domain);

Bytes32 intent_struct_hash(const PaymentIntent& intent);

// keccak256(0x1901 ++ domain_separator ++ struct_hash): the generic final step.
Bytes32 typed_data_digest(const Bytes32& domain_separator, const Bytes32& struct_hash);

// The hash the service signs and the router verifies.
Bytes32 intent_digest(const Eip712Domain& domain, const PaymentIntent& intent);
// Same, with a separator the caller computed once per (chain, router).
Bytes32 intent_digest(const Bytes32& domain_separator, const PaymentIntent& intent);

}  // namespace duepay::domain::evm
