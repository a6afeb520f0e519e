// chainwatch's watch set (ADR 0215) against a scripted chain (tests/doubles/scripted_chain.hpp),
// with 500 open charges besides the ones the test pays: the follower learns every charge from
// the events it is given (nothing reloads the charges), follows a charge created while it runs,
// one paid, one expired (late deposits still recorded; watched past retain until swept, then
// pruned) and one pruned after expiry + retain (a transfer to its address is no longer a charge
// event). Above DUEPAY_CHAINWATCH_TOPIC_FILTER_MAX the node is asked the same three queries per
// round however many charges are watched; below it, the `to`-filtered queries find the same
// events.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "consumers/roles/chain_follower.hpp"
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
namespace ev = domain::events;
using doubles::ScriptedChain;

constexpr std::uint64_t kChain = 80002;
constexpr std::uint32_t kConfirmations = 3;
constexpr std::uint64_t kDue = 1000;
constexpr std::uint32_t kBackground = 500;
constexpr std::uint64_t kRetain = 120;  // ten blocks of ScriptedChain::kBlockTime

domain::Bytes32 word(std::uint8_t fill, std::uint32_t n) {
    domain::Bytes32 w;
    w.fill(fill);
    for (int i = 0; i < 4; ++i) w[i] = static_cast<std::uint8_t>(n >> (8 * i));
    return w;
}
domain::InvoiceId invoice(std::uint32_t n) { return domain::InvoiceId{word(0x11, n)}; }
domain::Address deposit_address(std::uint32_t n) {
    domain::Address a;
    a.bytes.fill(0x55);
    for (int i = 0; i < 4; ++i) a.bytes[16 + i] = static_cast<std::uint8_t>(n >> (8 * i));
    return a;
}

ev::Event created(std::uint32_t n, std::uint64_t deadline) {
    auto data = facts::created_data(kDue);
    data.deposit_address = deposit_address(n);
    data.deadline = deadline;
    data.grace_seconds = 0;
    auto e = facts::event("created-" + std::to_string(n), data);
    e.invoice_id = invoice(n);
    return e;
}

domain::Bytes uint_word(std::uint64_t v) {
    domain::Bytes out(32, 0);
    for (int i = 0; i < 8; ++i) out[31 - i] = static_cast<std::uint8_t>(v >> (8 * i));
    return out;
}

// A buyer's ERC-20 transfer of the due amount to charge n's deposit address.
ports::Log transfer_to(std::uint32_t n, std::uint32_t tx) {
    ports::Log l;
    l.address = facts::kToken;
    l.topics = {infra::rpc::transfer_topic(), infra::rpc::address_topic(facts::address(0x22)),
                infra::rpc::address_topic(deposit_address(n))};
    l.data = uint_word(kDue);
    l.tx_hash = word(0x70, tx);
    return l;
}

// The factory's sweep of charge n's deposit address (Settled), in transaction `tx`.
ports::Log settled(std::uint32_t n, std::uint32_t tx) {
    ports::Log l;
    l.address = facts::address(0x02);  // the chain's deposit factory
    l.topics = {infra::rpc::settled_topic(), invoice(n).bytes,
                infra::rpc::address_topic(deposit_address(n))};
    l.data = domain::Bytes(32, 0);
    std::copy(facts::kToken.bytes.begin(), facts::kToken.bytes.end(), l.data.begin() + 12);
    const auto amount = uint_word(2 * kDue);
    l.data.insert(l.data.end(), amount.begin(), amount.end());
    l.tx_hash = word(0x80, tx);
    return l;
}

// The charges the test follows by name (numbers above the background charges').
constexpr std::uint32_t kPaid = 1000;     // paid in block 1, another deposit after
constexpr std::uint32_t kNew = 1001;      // created after the follower started
constexpr std::uint32_t kExpired = 1002;  // expires, late deposits keep it watched until swept
constexpr std::uint32_t kPruned = 1003;   // expires, nothing received: pruned after retain

ChainwatchSettings settings_with(std::size_t filter_max) {
    ChainwatchSettings s;
    s.chain_id = kChain;
    s.start_block = 1;
    s.retain_seconds = kRetain;
    s.topic_filter_max = filter_max;
    s.transfer_span = 100;  // no range of the scenarios is split (chain_scan_test covers that)
    return s;
}

// Chain 80002 as the scripted chain plays it: router 0x01.., factory 0x02.., one token.
infra::config::ChainInfo test_chain() {
    infra::config::ChainInfo c;
    c.chain_id = domain::ChainId{kChain};
    c.confirmations = kConfirmations;
    c.transfer_rail = true;
    c.router = facts::address(0x01);
    c.deposit_factory = facts::address(0x02);
    c.tokens = {{"USDT", "Tether USD", facts::kToken, 6}};
    return c;
}

struct Run {
    // (invoice number, event type) in append order.
    std::vector<std::pair<std::uint32_t, std::string>> events;
    std::vector<ports::LogFilter> filters;
    std::size_t charges_after_prune = 0;
    std::size_t charges_before_prune = 0;
    std::size_t charges_after_sweep = 0;
};

// The scenario, with the follower's filter threshold at `filter_max`.
Run scenario(std::size_t filter_max) {
    const auto settings = settings_with(filter_max);
    const auto chain_info = test_chain();
    ScriptedChain chain;
    doubles::MemoryCheckpoints checkpoints;
    doubles::FakeLog log;
    ChainFollower follower(settings, chain_info, checkpoints, log, chain);
    auto follow = [&] {
        for (int i = 0; i < 30 && follower.step(); ++i) {
        }
    };
    const std::uint64_t far = 1'800'000'000;
    const std::uint64_t soon = ScriptedChain::kGenesisTime + 4 * ScriptedChain::kBlockTime;
    for (std::uint32_t n = 0; n < kBackground; ++n) follower.learn(created(n, far));
    follower.learn(created(kPaid, far));
    follower.learn(created(kExpired, soon));
    follower.learn(created(kPruned, soon));
    follower.load_checkpoint();
    std::uint32_t tx = 0;

    chain.mine({transfer_to(kPaid, ++tx)});  // block 1
    chain.mine_empty(2);
    follow();
    follower.learn(created(kNew, far));     // a charge created while the follower runs
    chain.mine({transfer_to(kNew, ++tx)});  // block 4
    chain.mine_empty(3);                    // block 5 (past the limit) confirmed: expiries
    follow();
    chain.mine({transfer_to(kExpired, ++tx), transfer_to(kPaid, ++tx)});  // block 8
    chain.mine_empty(2);
    follow();
    Run run;
    run.charges_before_prune = follower.charges();
    chain.mine_empty(12);  // chain time past limit + retain, a prune check on the way
    follow();
    run.charges_after_prune = follower.charges();
    chain.mine({transfer_to(kPruned, ++tx), transfer_to(kExpired, ++tx)});
    chain.mine_empty(2);
    follow();
    // kExpired, past limit + retain but unswept, is checked again at each prune: once swept, the
    // next check (a minute of chain time later) prunes it.
    chain.mine({settled(kExpired, ++tx)});
    chain.mine_empty(8);
    follow();
    run.charges_after_sweep = follower.charges();
    chain.mine({transfer_to(kExpired, ++tx)});
    chain.mine_empty(2);
    follow();

    for (const auto& r : log.records) {
        auto e = ev::decode_event(r.value);
        EXPECT_TRUE(e.ok()) << r.value;
        if (!e) continue;
        std::uint32_t n = 0;
        for (int i = 0; i < 4; ++i)
            n |= static_cast<std::uint32_t>(e->invoice_id.bytes[i]) << (8 * i);
        run.events.emplace_back(n, std::string(ev::event_type(*e)));
    }
    run.filters = chain.filters();
    return run;
}

std::size_t count(const Run& run, std::uint32_t n, const std::string& type) {
    return static_cast<std::size_t>(std::count(run.events.begin(), run.events.end(),
                                               std::pair<std::uint32_t, std::string>{n, type}));
}

bool is_transfer_query(const ports::LogFilter& f) {
    return !f.topics.empty() && !f.topics.front().empty() &&
           f.topics.front().front() == infra::rpc::transfer_topic();
}

TEST(WatchSet, FollowsCreatedPaidAndExpiredChargesFromTheEventsItLearns) {
    const auto run = scenario(100);  // 504 deposit addresses: above the filter threshold
    EXPECT_EQ(count(run, kPaid, "charge.paid"), 1u);
    EXPECT_EQ(count(run, kPaid, "charge.deposit_seen"), 2u) << "a deposit after paid is seen";
    EXPECT_EQ(count(run, kNew, "charge.paid"), 1u) << "a charge learnt mid-run is watched";
    EXPECT_EQ(count(run, kExpired, "charge.expired"), 1u);
    EXPECT_EQ(count(run, kExpired, "charge.late_deposit"), 2u)
        << "an expired charge stays watched for late deposits (and past retain while unswept)";
    EXPECT_EQ(count(run, kPruned, "charge.expired"), 1u);
    EXPECT_EQ(count(run, kPruned, "charge.late_deposit"), 0u) << "a pruned charge is not watched";
    EXPECT_EQ(run.charges_before_prune - run.charges_after_prune, 1u) << "only kPruned is done";
    EXPECT_EQ(count(run, kExpired, "charge.settled"), 1u);
    EXPECT_EQ(run.charges_after_prune - run.charges_after_sweep, 1u) << "swept kExpired is done";
    EXPECT_EQ(count(run, kExpired, "charge.late_deposit"), 2u) << "a transfer after its pruning";
    for (std::uint32_t n = 0; n < kBackground; ++n) {
        ASSERT_TRUE(std::none_of(run.events.begin(), run.events.end(),
                                 [&](const auto& e) { return e.first == n; }))
            << "an event for an untouched charge " << n;
    }
}

TEST(WatchSet, AboveTheThresholdARoundAsksTheSameThreeQueriesWhateverIsWatched) {
    const auto run = scenario(100);
    std::size_t transfers = 0;
    std::size_t ranges = 0;
    for (const auto& f : run.filters) {
        for (const auto& alternatives : f.topics) EXPECT_LE(alternatives.size(), 1u);
        if (is_transfer_query(f)) {
            ++transfers;
            EXPECT_EQ(f.topics.size(), 1u) << "a Transfer query filtered by deposit address";
        }
        if (!f.topics.empty() && f.topics.front().front() == infra::rpc::invoice_paid_topic())
            ++ranges;
    }
    EXPECT_GT(ranges, 0u);
    EXPECT_EQ(transfers, ranges) << "one Transfer query per scanned range";
    EXPECT_EQ(run.filters.size(), 3 * ranges) << "router, Transfer and Settled per range";
}

TEST(WatchSet, BelowTheThresholdTheFilteredQueriesFindTheSameEvents) {
    const auto unfiltered = scenario(0);
    const auto filtered = scenario(1'000'000);
    EXPECT_EQ(filtered.events, unfiltered.events);
    EXPECT_EQ(scenario(100).events, unfiltered.events);
    EXPECT_TRUE(std::any_of(filtered.filters.begin(), filtered.filters.end(), [](const auto& f) {
        return is_transfer_query(f) && f.topics.size() == 3 && f.topics[2].size() == 200;
    })) << "no chunked to-filter below the threshold";
}

}  // namespace
}  // namespace duepay::consumers::detail

namespace duepay::consumers::detail {
namespace {

// 2,000 charges whose limit falls in the same block: the round that confirms it expires them all
// (one decision each, appended together, one wait for the acks, one checkpoint).
TEST(WatchSet, ManyChargesExpiringInOneBlockAreExpiredInOneRound) {
    const auto settings = settings_with(1000);
    const auto chain_info = test_chain();
    ScriptedChain chain;
    doubles::MemoryCheckpoints checkpoints;
    doubles::FakeLog log;
    ChainFollower follower(settings, chain_info, checkpoints, log, chain);
    const std::uint64_t limit = ScriptedChain::kGenesisTime + 2 * ScriptedChain::kBlockTime;
    for (std::uint32_t n = 0; n < 2000; ++n) follower.learn(created(n, limit));
    follower.load_checkpoint();
    chain.mine_empty(kConfirmations + 1);  // head 4: blocks 1 and 2 confirmed, block 3 not yet
    while (follower.step()) {
    }
    ASSERT_TRUE(log.records.empty()) << "expired before a block past the limit was confirmed";
    const auto stores = checkpoints.stored.size();
    chain.mine();  // head 5: block 3 (past the limit) confirmed
    ASSERT_TRUE(follower.step());
    EXPECT_FALSE(follower.step());
    EXPECT_EQ(checkpoints.stored.size(), stores + 1) << "one checkpoint for the round";
    EXPECT_EQ(checkpoints.stored.back().second.number, 3u);
    ASSERT_EQ(log.records.size(), 2000u);
    for (const auto& r : log.records) {
        auto e = ev::decode_event(r.value);
        ASSERT_TRUE(e.ok());
        EXPECT_EQ(ev::event_type(*e), "charge.expired");
    }
}

}  // namespace
}  // namespace duepay::consumers::detail
