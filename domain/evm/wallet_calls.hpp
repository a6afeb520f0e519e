// What a buyer's wallet sends on each rail, as plain bytes and text, so the hosted checkout needs
// no Ethereum library in the browser (docs/design.md, docs/checkout.md):
// - wallet rail: ERC-20 `approve(router, amount)` on the token, then
//   `Router.pay((bytes32,address,address,uint256,uint16,uint256),bytes)` with the signed intent
//   (infra/chain/contracts/Router.sol);
// - transfer rail: the EIP-681 URI of an ERC-20 `transfer` to the deposit address, for QR codes.
#pragma once

#include <string>

#include "domain/evm/eip712.hpp"
#include "domain/evm/signature.hpp"
#include "domain/types.hpp"

namespace duepay::domain::evm {

// The first 4 bytes of keccak-256 of a canonical function signature.
std::array<std::uint8_t, 4> function_selector(std::string_view signature);

// approve(address,uint256): selector 0x095ea7b3, then two words.
Bytes erc20_approve_calldata(const Address& spender, const TokenAmount& amount);

// Router.pay(intent, signature): the intent tuple is static, so it is inlined as six words; the
// `bytes` argument follows as an offset (7 words), its length (65) and the padded bytes.
Bytes router_pay_calldata(const PaymentIntent& intent, const Signature& signature);

// ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<amount> (EIP-681), addresses in
// EIP-55 form, the amount as a plain decimal integer in the token's smallest unit.
std::string eip681_transfer_uri(const Address& token, ChainId chain_id, const Address& to,
                                const TokenAmount& amount);

}  // namespace duepay::domain::evm
