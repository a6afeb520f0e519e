// Signed transactions and contract calldata for the dev tools (admin simulate-payment, settle
// --send): legacy EIP-155 transactions RLP-encoded and signed through the Signer port, and the ABI
// calldata of the few calls duepay makes (ERC-20 approve/transfer, Router.pay,
// DepositFactory.settle).
#pragma once

#include <cstdint>
#include <string_view>

#include "domain/evm/eip712.hpp"
#include "domain/ports/signer.hpp"
#include "domain/types.hpp"

namespace duepay::infra::rpc {

struct LegacyTransaction {
    std::uint64_t nonce = 0;
    domain::uint256 gas_price = 0;
    std::uint64_t gas = 0;
    domain::Address to;
    domain::uint256 value = 0;
    domain::Bytes data;
    domain::ChainId chain_id;
};

// rlp([nonce, gasPrice, gas, to, value, data, v, r, s]) with v = chainId * 2 + 35 + recovery id.
domain::Bytes sign_legacy_transaction(const LegacyTransaction& tx, const ports::Signer& signer);
// keccak256(rlp([nonce, gasPrice, gas, to, value, data, chainId, 0, 0])): what is signed.
domain::Bytes32 legacy_signing_hash(const LegacyTransaction& tx);

// The first 4 bytes of keccak256(signature), e.g. "transfer(address,uint256)".
std::array<std::uint8_t, 4> selector(std::string_view signature);

domain::Bytes erc20_transfer_calldata(const domain::Address& to, const domain::uint256& amount);
domain::Bytes erc20_approve_calldata(const domain::Address& spender, const domain::uint256& amount);
// Router.pay((bytes32,address,address,uint256,uint16,uint256),bytes)
domain::Bytes router_pay_calldata(const domain::evm::PaymentIntent& intent,
                                  const domain::evm::Signature& signature);
// DepositFactory.settle(bytes32,address,uint16,address)
domain::Bytes factory_settle_calldata(const domain::InvoiceId& invoice_id,
                                      const domain::Address& merchant, std::uint16_t fee_bps,
                                      const domain::Address& token);

// Event topics (keccak256 of the event signature).
const domain::Bytes32& transfer_topic();  // Transfer(address,address,uint256)
const domain::Bytes32&
invoice_paid_topic();  // InvoicePaid(bytes32,address,address,address,uint256,uint256)
const domain::Bytes32& settled_topic();  // Settled(bytes32,address,address,uint256,uint256)

}  // namespace duepay::infra::rpc
