#include "domain/evm/wallet_calls.hpp"

#include "domain/evm/abi.hpp"
#include "domain/evm/address.hpp"
#include "domain/evm/keccak.hpp"

namespace duepay::domain::evm {
namespace {

void append_word(Bytes& out, const Word& word) { out.insert(out.end(), word.begin(), word.end()); }

}  // namespace

std::array<std::uint8_t, 4> function_selector(std::string_view signature) {
    const auto hash = keccak256(signature);
    return {hash[0], hash[1], hash[2], hash[3]};
}

Bytes erc20_approve_calldata(const Address& spender, const TokenAmount& amount) {
    static const auto selector = function_selector("approve(address,uint256)");
    Bytes out(selector.begin(), selector.end());
    out.reserve(4 + 2 * 32);
    append_word(out, abi_word(spender));
    append_word(out, abi_word(amount.value));
    return out;
}

Bytes router_pay_calldata(const PaymentIntent& intent, const Signature& signature) {
    static const auto selector =
        function_selector("pay((bytes32,address,address,uint256,uint16,uint256),bytes)");
    Bytes out(selector.begin(), selector.end());
    out.reserve(4 + 11 * 32);
    append_word(out, abi_word(intent.invoice_id.bytes));
    append_word(out, abi_word(intent.merchant));
    append_word(out, abi_word(intent.token));
    append_word(out, abi_word(intent.amount.value));
    append_word(out, abi_word_u64(intent.fee_bps));
    append_word(out, abi_word(intent.deadline));
    append_word(out, abi_word_u64(std::uint64_t{7} *
                                  32));  // offset of `signature` from the start of the args
    append_word(out, abi_word_u64(signature.bytes.size()));
    Bytes padded(signature.bytes.begin(), signature.bytes.end());
    padded.resize((padded.size() + 31) / 32 * 32, 0);
    out.insert(out.end(), padded.begin(), padded.end());
    return out;
}

std::string eip681_transfer_uri(const Address& token, ChainId chain_id, const Address& to,
                                const TokenAmount& amount) {
    return "ethereum:" + to_checksum(token) + "@" + std::to_string(chain_id.value) +
           "/transfer?address=" + to_checksum(to) + "&uint256=" + amount.value.str();
}

}  // namespace duepay::domain::evm
