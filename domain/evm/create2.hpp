// CREATE2 deposit addresses (EIP-1014): one address per invoice, known before any contract exists.
//   salt    = keccak256(abi.encode(bytes32 invoiceId, address merchant, uint16 feeBps))
//   address = keccak256(0xff ++ factory ++ salt ++ initCodeHash)[12:]
// initCodeHash is the keccak256 of the Forwarder's creation code, published per chain in
// var/chains.json as forwarderInitCodeHash.
#pragma once

#include <cstdint>

#include "domain/types.hpp"

namespace duepay::domain::evm {

Bytes32 deposit_salt(const InvoiceId& invoice_id, const Address& merchant, std::uint16_t fee_bps);

Address create2_address(const Address& factory, const Bytes32& salt, const Bytes32& init_code_hash);

}  // namespace duepay::domain::evm
