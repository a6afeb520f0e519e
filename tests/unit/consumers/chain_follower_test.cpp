// chainwatch's follower against a scripted chain (tests/doubles/scripted_chain.hpp): the events it
// appends as blocks arrive, leave the chain and come back. One charge on the transfer rail, three
// confirmations; the node, the checkpoint store and the event log are doubles of their ports, the
// decisions are the real domain::charge::decide. The real node is chain_js (integration).
#include "consumers/roles/chain_follower.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "domain/events/event_json.hpp"
#include "domain/hex.hpp"
#include "infra/rpc/chain_scan.hpp"
#include "infra/rpc/transaction.hpp"
#include "tests/doubles/api_ports.hpp"
#include "tests/doubles/scripted_chain.hpp"
#include "tests/unit/domain/charge/facts.hpp"

namespace duepay::consumers::detail {
namespace {

namespace facts = domain::charge::facts;
using domain::events::Event;

constexpr std::uint64_t kChain = 80002;  // facts::event's chain
constexpr std::uint32_t kConfirmations = 3;
constexpr std::uint64_t kDue = 1000;

domain::Bytes uint_word(std::uint64_t v) {
    domain::Bytes out(32, 0);
    for (int i = 0; i < 8; ++i) out[31 - i] = static_cast<std::uint8_t>(v >> (8 * i));
    return out;
}

// The buyer's ERC-20 transfer of `amount` to the charge's deposit address, in transaction `tx`.
ports::Log deposit(std::uint8_t tx, std::uint64_t amount = kDue) {
    ports::Log l;
    l.address = facts::kToken;
    l.topics = {infra::rpc::transfer_topic(), infra::rpc::address_topic(facts::address(0x22)),
                infra::rpc::address_topic(*facts::created_data(kDue).deposit_address)};
    l.data = uint_word(amount);
    l.tx_hash = facts::bytes32(tx);
    return l;
}

class ChainFollowerTest : public ::testing::Test {
  protected:
    ChainFollowerTest() {
        settings.chain_id = kChain;
        settings.start_block = 1;
        chain_info.chain_id = domain::ChainId{kChain};
        chain_info.confirmations = kConfirmations;
        chain_info.transfer_rail = true;
        chain_info.router = facts::address(0x01);
        chain_info.deposit_factory = facts::address(0x02);
        chain_info.tokens = {{"USDT", "Tether USD", facts::kToken, 6}};
        follower = std::make_unique<ChainFollower>(settings, chain_info, checkpoints, log, chain);
        follower->learn(facts::event("evt_created", facts::created_data(kDue)));
        follower->load_checkpoint();
    }

    // Steps until the follower has nothing left to do (it reached the head).
    void follow() {
        for (int i = 0; i < 20 && follower->step(); ++i) {
        }
    }

    std::vector<Event> appended() const {
        std::vector<Event> out;
        for (const auto& r : log.records) {
            auto e = domain::events::decode_event(r.value);
            EXPECT_TRUE(e.ok()) << r.value;
            if (e) out.push_back(*e);
        }
        return out;
    }
    std::vector<std::string> types() const {
        std::vector<std::string> out;
        for (const auto& e : appended()) out.emplace_back(domain::events::event_type(e));
        return out;
    }
    ports::ChainCheckpoint last_checkpoint() const {
        EXPECT_FALSE(checkpoints.stored.empty());
        return checkpoints.stored.empty() ? ports::ChainCheckpoint{}
                                          : checkpoints.stored.back().second;
    }

    ChainwatchSettings settings;
    infra::config::ChainInfo chain_info;
    doubles::ScriptedChain chain;
    doubles::MemoryCheckpoints checkpoints;
    doubles::FakeLog log;
    std::unique_ptr<ChainFollower> follower;
};

const std::string kDetected = "charge.payment_detected";
const std::string kReorged = "charge.payment_reorged";
const std::string kDepositSeen = "charge.deposit_seen";
const std::string kPaid = "charge.paid";

TEST_F(ChainFollowerTest, ConfirmsAPaymentOnceItReachesDepthAndNotBefore) {
    const auto block = chain.mine({deposit(0x70)});  // block 1
    follow();
    EXPECT_EQ(types(), std::vector<std::string>{kDetected});
    chain.mine();  // depth 2
    follow();
    EXPECT_EQ(types(), std::vector<std::string>{kDetected}) << "confirmed below depth";
    EXPECT_EQ(last_checkpoint().number, 0u) << "a block below depth was checkpointed";
    chain.mine();  // depth 3: confirmed
    follow();
    const auto t = types();
    ASSERT_FALSE(t.empty());
    EXPECT_EQ(t.front(), kDetected);
    EXPECT_EQ(t.back(), kPaid);
    const auto paid = std::get<domain::events::ChargePaid>(appended().back().data);
    EXPECT_EQ(paid.payment.block_hash, block.hash);
    EXPECT_EQ(paid.confirmed_total.value, kDue);
    EXPECT_EQ(last_checkpoint().number, 1u);
    EXPECT_EQ(last_checkpoint().hash, block.hash);
    // More blocks change nothing: the payment is decided once.
    const auto before = log.records.size();
    chain.mine_empty(3);
    follow();
    EXPECT_EQ(log.records.size(), before);
}

TEST_F(ChainFollowerTest, ReorgOfDepthOneWithdrawsTheDetectionBeforeConfirmation) {
    const auto orphan = chain.mine({deposit(0x70)});  // block 1, holds the payment
    follow();
    ASSERT_EQ(types(), std::vector<std::string>{kDetected});
    chain.rewind_to(0);  // block 1 leaves the chain; the new branch has no payment
    chain.mine_empty(2);
    follow();
    ASSERT_EQ(types(), (std::vector<std::string>{kDetected, kReorged}));
    const auto reorged = std::get<domain::events::PaymentReorged>(appended().back().data);
    EXPECT_EQ(reorged.block_hash, orphan.hash);
    EXPECT_EQ(reorged.block_number, 1u);
    EXPECT_EQ(reorged.tx_hash, facts::bytes32(0x70));
    chain.mine_empty(5);  // far past depth: the payment is gone, nothing is confirmed
    follow();
    EXPECT_EQ(types(), (std::vector<std::string>{kDetected, kReorged}));
    EXPECT_EQ(last_checkpoint().hash, chain.header(last_checkpoint().number).hash)
        << "the checkpoint is a block of the new branch";
}

TEST_F(ChainFollowerTest, DeeperReorgWithdrawsTheDetectionOfEveryOrphanedBlock) {
    chain.mine();                                     // block 1
    const auto orphan = chain.mine({deposit(0x70)});  // block 2
    chain.mine();                                     // block 3: block 1 confirmed, 2 at depth 2
    follow();
    ASSERT_EQ(types(), std::vector<std::string>{kDetected});
    ASSERT_EQ(last_checkpoint().number, 1u);
    chain.rewind_to(1);  // blocks 2 and 3 leave the chain
    chain.mine_empty(3);
    follow();
    ASSERT_EQ(types(), (std::vector<std::string>{kDetected, kReorged}));
    EXPECT_EQ(std::get<domain::events::PaymentReorged>(appended().back().data).block_hash,
              orphan.hash);
    chain.mine_empty(4);
    follow();
    EXPECT_EQ(types(), (std::vector<std::string>{kDetected, kReorged}));
    EXPECT_GE(last_checkpoint().number, 4u);
    EXPECT_EQ(last_checkpoint().hash, chain.header(last_checkpoint().number).hash);
}

TEST_F(ChainFollowerTest, TransferReincludedInAnotherBlockIsDetectedAgainThere) {
    chain.mine();                                     // block 1
    const auto orphan = chain.mine({deposit(0x70)});  // block 2
    follow();
    ASSERT_EQ(types(), std::vector<std::string>{kDetected});
    chain.rewind_to(1);
    chain.mine();                                    // block 2': empty
    const auto again = chain.mine({deposit(0x70)});  // block 3': the same transaction
    follow();
    ASSERT_EQ(types(), (std::vector<std::string>{kDetected, kReorged, kDetected}));
    const auto events = appended();
    const auto first = std::get<domain::events::PaymentDetected>(events[0].data);
    const auto second = std::get<domain::events::PaymentDetected>(events[2].data);
    EXPECT_EQ(first.payment.block_hash, orphan.hash);
    EXPECT_EQ(second.payment.block_number, 3u);
    EXPECT_EQ(second.payment.block_hash, again.hash);
    EXPECT_EQ(second.payment.tx_hash, first.payment.tx_hash);
    EXPECT_NE(events[0].id, events[2].id) << "a detection in another block is another fact";
    chain.mine_empty(2);  // block 3' at depth 3
    follow();
    const auto t = types();
    EXPECT_EQ(t.back(), kPaid);
    EXPECT_EQ(std::get<domain::events::ChargePaid>(appended().back().data).payment.block_hash,
              again.hash);
}

TEST_F(ChainFollowerTest, ReorgBelowTheCheckpointRescansFromTheStartBlock) {
    chain.mine_empty(4);  // blocks 1..4: 1 and 2 confirmed and checkpointed
    follow();
    ASSERT_EQ(last_checkpoint().number, 2u);
    EXPECT_TRUE(log.records.empty());
    // A reorg deeper than the window: the checkpointed block itself leaves the chain, and the new
    // branch holds the payment in its first block.
    chain.rewind_to(0);
    const auto paid_in = chain.mine({deposit(0x70)});  // block 1'
    chain.mine_empty(4);                               // head 5'
    follow();
    const auto stored = checkpoints.stored;
    const bool reset = std::any_of(stored.begin(), stored.end(), [&](const auto& c) {
        return c.second.number == 0 && c.second.hash == chain.header(0).hash;
    });
    EXPECT_TRUE(reset) << "the follower did not go back to the start block";
    EXPECT_EQ(last_checkpoint().number, 3u);
    EXPECT_EQ(last_checkpoint().hash, chain.header(3).hash);
    const auto t = types();
    ASSERT_FALSE(t.empty());
    EXPECT_EQ(t.back(), kPaid) << "the payment of the new branch was not found by the rescan";
    EXPECT_EQ(std::count(t.begin(), t.end(), kReorged), 0);
    EXPECT_EQ(std::get<domain::events::ChargePaid>(appended().back().data).payment.block_hash,
              paid_in.hash);
}

}  // namespace
}  // namespace duepay::consumers::detail
