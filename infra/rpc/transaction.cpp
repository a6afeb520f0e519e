#include "infra/rpc/transaction.hpp"

#include <vector>

#include "domain/evm/abi.hpp"
#include "domain/evm/keccak.hpp"
#include "domain/evm/rlp.hpp"

namespace duepay::infra::rpc {

using namespace domain::evm;
using domain::Bytes;

namespace {

std::vector<Bytes> unsigned_fields(const LegacyTransaction& tx) {
    return {rlp_uint(tx.nonce),     rlp_uint(tx.gas_price), rlp_uint(tx.gas),
            rlp_bytes(tx.to.bytes), rlp_uint(tx.value),     rlp_bytes(tx.data)};
}

void append(Bytes& out, const Word& w) { out.insert(out.end(), w.begin(), w.end()); }

Bytes with_selector(std::string_view signature) {
    const auto sel = selector(signature);
    return Bytes(sel.begin(), sel.end());
}

}  // namespace

domain::Bytes32 legacy_signing_hash(const LegacyTransaction& tx) {
    auto fields = unsigned_fields(tx);
    fields.push_back(rlp_uint(tx.chain_id.value));
    fields.push_back(rlp_uint(0));
    fields.push_back(rlp_uint(0));
    return keccak256(rlp_list(fields));
}

Bytes sign_legacy_transaction(const LegacyTransaction& tx, const ports::Signer& signer) {
    const auto sig = signer.sign_digest(legacy_signing_hash(tx));
    const std::uint64_t recovery = sig.bytes[64] - 27u;
    auto fields = unsigned_fields(tx);
    fields.push_back(rlp_uint(domain::uint256(tx.chain_id.value) * 2 + 35 + recovery));
    // r and s are integers in RLP: leading zero bytes dropped.
    domain::uint256 r = 0, s = 0;
    for (int i = 0; i < 32; ++i) r = (r << 8) | sig.bytes[i];
    for (int i = 32; i < 64; ++i) s = (s << 8) | sig.bytes[i];
    fields.push_back(rlp_uint(r));
    fields.push_back(rlp_uint(s));
    return rlp_list(fields);
}

std::array<std::uint8_t, 4> selector(std::string_view signature) {
    const auto h = keccak256(signature);
    return {h[0], h[1], h[2], h[3]};
}

Bytes erc20_transfer_calldata(const domain::Address& to, const domain::uint256& amount) {
    Bytes out = with_selector("transfer(address,uint256)");
    append(out, abi_word(to));
    append(out, abi_word(amount));
    return out;
}

Bytes erc20_approve_calldata(const domain::Address& spender, const domain::uint256& amount) {
    Bytes out = with_selector("approve(address,uint256)");
    append(out, abi_word(spender));
    append(out, abi_word(amount));
    return out;
}

Bytes router_pay_calldata(const PaymentIntent& intent, const Signature& signature) {
    Bytes out = with_selector("pay((bytes32,address,address,uint256,uint16,uint256),bytes)");
    append(out, abi_word(intent.invoice_id.bytes));
    append(out, abi_word(intent.merchant));
    append(out, abi_word(intent.token));
    append(out, abi_word(intent.amount.value));
    append(out, abi_word_u64(intent.fee_bps));
    append(out, abi_word(intent.deadline));
    append(out, abi_word_u64(std::uint64_t{7} *
                             32));  // the static tuple is inline (6 words), then this offset
    append(out, abi_word_u64(signature.bytes.size()));
    Bytes tail(96, 0);
    std::copy(signature.bytes.begin(), signature.bytes.end(), tail.begin());
    out.insert(out.end(), tail.begin(), tail.end());
    return out;
}

Bytes factory_settle_calldata(const domain::InvoiceId& invoice_id, const domain::Address& merchant,
                              std::uint16_t fee_bps, const domain::Address& token) {
    Bytes out = with_selector("settle(bytes32,address,uint16,address)");
    append(out, abi_word(invoice_id.bytes));
    append(out, abi_word(merchant));
    append(out, abi_word_u64(fee_bps));
    append(out, abi_word(token));
    return out;
}

const domain::Bytes32& transfer_topic() {
    static const auto t = keccak256(std::string_view("Transfer(address,address,uint256)"));
    return t;
}

const domain::Bytes32& invoice_paid_topic() {
    static const auto t =
        keccak256(std::string_view("InvoicePaid(bytes32,address,address,address,uint256,uint256)"));
    return t;
}

const domain::Bytes32& settled_topic() {
    static const auto t =
        keccak256(std::string_view("Settled(bytes32,address,address,uint256,uint256)"));
    return t;
}

}  // namespace duepay::infra::rpc
