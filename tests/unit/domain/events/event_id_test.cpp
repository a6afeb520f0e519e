#include "domain/events/event_id.hpp"

#include <gtest/gtest.h>

#include <set>

#include "domain/events/event.hpp"

namespace duepay::domain::events {
namespace {

Bytes32 filled(std::uint8_t b) {
    Bytes32 h;
    h.fill(b);
    return h;
}

// Expected values computed independently with ethers v6:
//   keccak256(concat([toUtf8Bytes("duepay:chain-fact:v1"), "0x00", toUtf8Bytes(type), "0x00",
//                     zeroPadValue(toBeHex(chainId), 8), txHash, zeroPadValue(toBeHex(logIndex), 4)
//                     (, blockHash)]))
TEST(ChainFactId, MatchesTheDocumentedEncoding) {
    EXPECT_EQ(chain_fact_id(DepositSeen::kType, ChainId{80002}, filled(0xab), 7),
              "0x34eab588c602edafdacf326220afb34a4bf605555abaafca8bc17015ec0e4643");
    EXPECT_EQ(chain_fact_id(PaymentDetected::kType, ChainId{137}, filled(0xab), 0, filled(0xcd)),
              "0x7769ebcf0870273df49168c59796fdce8f2668acb542057d4f50450b6319a4d3");
}

TEST(ChainFactId, EachInputChangesTheId) {
    std::set<std::string> ids{
        chain_fact_id(DepositSeen::kType, ChainId{80002}, filled(1), 0),
        chain_fact_id(ChargePaid::kType, ChainId{80002}, filled(1), 0),
        chain_fact_id(DepositSeen::kType, ChainId{137}, filled(1), 0),
        chain_fact_id(DepositSeen::kType, ChainId{80002}, filled(2), 0),
        chain_fact_id(DepositSeen::kType, ChainId{80002}, filled(1), 1),
        chain_fact_id(DepositSeen::kType, ChainId{80002}, filled(1), 0, filled(9)),
        chain_fact_id(DepositSeen::kType, ChainId{80002}, filled(1), 0, filled(8)),
    };
    EXPECT_EQ(ids.size(), 7u);
    // Deterministic: the same fact twice is the same id.
    EXPECT_EQ(chain_fact_id(DepositSeen::kType, ChainId{80002}, filled(1), 0),
              chain_fact_id(DepositSeen::kType, ChainId{80002}, filled(1), 0));
    EXPECT_EQ(chain_fact_id(DepositSeen::kType, ChainId{1}, filled(1), 0).size(), 66u);
}

}  // namespace
}  // namespace duepay::domain::events
