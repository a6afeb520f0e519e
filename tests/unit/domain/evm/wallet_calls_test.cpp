// Calldata of the wallet rail and the EIP-681 URI of the transfer rail. The expected hex was
// produced by ethers v6 Interface.encodeFunctionData for the same values (the Router ABI of
// infra/chain/contracts/Router.sol), so a wrong selector, offset or padding fails here.
#include "domain/evm/wallet_calls.hpp"

#include <gtest/gtest.h>

#include "domain/evm/address.hpp"
#include "domain/hex.hpp"

namespace duepay::domain::evm {
namespace {

Address addr(std::string_view text) { return parse_address(text).value(); }

TEST(WalletCalls, Selectors) {
    EXPECT_EQ(to_hex(function_selector("approve(address,uint256)")), "0x095ea7b3");
    EXPECT_EQ(
        to_hex(function_selector("pay((bytes32,address,address,uint256,uint16,uint256),bytes)")),
        "0x0b11d21f");
}

TEST(WalletCalls, ApproveMatchesEthers) {
    const auto data = erc20_approve_calldata(addr("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"),
                                             TokenAmount{1250000});
    EXPECT_EQ(to_hex(data),
              "0x095ea7b3000000000000000000000000e7f1725e7734ce288f8367e1bb143e90bb3f0512"
              "00000000000000000000000000000000000000000000000000000000001312d0");
}

TEST(WalletCalls, PayMatchesEthers) {
    PaymentIntent intent;
    intent.invoice_id.bytes.fill(0xab);
    intent.merchant = addr("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    intent.token = addr("0x5FbDB2315678afecb367f032d93F642f64180aa3");
    intent.amount = TokenAmount{1250000};
    intent.fee_bps = 100;
    intent.deadline = 1900000000;
    Signature sig;
    std::fill(sig.bytes.begin(), sig.bytes.begin() + 32, 0x11);
    std::fill(sig.bytes.begin() + 32, sig.bytes.begin() + 64, 0x22);
    sig.bytes[64] = 0x1b;
    EXPECT_EQ(to_hex(router_pay_calldata(intent, sig)),
              "0x0b11d21f"
              "abababababababababababababababababababababababababababababababab"
              "00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8"
              "0000000000000000000000005fbdb2315678afecb367f032d93f642f64180aa3"
              "00000000000000000000000000000000000000000000000000000000001312d0"
              "0000000000000000000000000000000000000000000000000000000000000064"
              "00000000000000000000000000000000000000000000000000000000713fb300"
              "00000000000000000000000000000000000000000000000000000000000000e0"
              "0000000000000000000000000000000000000000000000000000000000000041"
              "1111111111111111111111111111111111111111111111111111111111111111"
              "2222222222222222222222222222222222222222222222222222222222222222"
              "1b00000000000000000000000000000000000000000000000000000000000000");
}

TEST(WalletCalls, Eip681TransferUri) {
    const auto uri = eip681_transfer_uri(
        addr("0x5fbdb2315678afecb367f032d93f642f64180aa3"), ChainId{80002},
        addr("0x70997970c51812dc3a010c7d01b50e0d17dc79c8"),
        TokenAmount{uint256(
            "115792089237316195423570985008687907853269984665640564039457584007913129639935")});
    EXPECT_EQ(uri,
              "ethereum:0x5FbDB2315678afecb367f032d93F642f64180aa3@80002/transfer?address="
              "0x70997970C51812dc3A010C7d01b50e0d17dc79C8&uint256="
              "115792089237316195423570985008687907853269984665640564039457584007913129639935");
}

}  // namespace
}  // namespace duepay::domain::evm
