// ChainScanner and match_log without a node: the eth_getLogs filters it asks for (only watched
// deposit addresses, chunked), how logs become observations, and the reorg guard. The node's
// side is a recording function (a unit-test double); chain_js covers the real node.
#include "infra/rpc/chain_scan.hpp"

#include <gtest/gtest.h>

#include "domain/hex.hpp"
#include "infra/rpc/transaction.hpp"

namespace duepay::infra::rpc {
namespace {

Address address(std::uint8_t b, std::uint8_t last = 0) {
    Address a;
    a.bytes.fill(b);
    a.bytes[19] = last;
    return a;
}
Bytes32 word(std::uint8_t b) {
    Bytes32 w;
    w.fill(b);
    return w;
}
Bytes uint_word(std::uint64_t v) {
    Bytes out(32, 0);
    for (int i = 0; i < 8; ++i) out[31 - i] = static_cast<std::uint8_t>(v >> (8 * i));
    return out;
}

const Address kRouter = address(0x01);
const Address kFactory = address(0x02);
const Address kToken = address(0x03);

ScanTargets targets(std::size_t chunk = 200) {
    return ScanTargets{kRouter, kFactory, {kToken}, chunk};
}

BlockHeader header(std::uint64_t n) {
    return BlockHeader{n, word(static_cast<std::uint8_t>(n)), {}, 1000 + n};
}

Log transfer_log(const Address& to, std::uint64_t amount, std::uint64_t block,
                 std::uint32_t index) {
    Log l;
    l.address = kToken;
    l.topics = {transfer_topic(), address_topic(address(0x22)), address_topic(to)};
    l.data = uint_word(amount);
    l.block_number = block;
    l.block_hash = word(static_cast<std::uint8_t>(block));
    l.tx_hash = word(0x70 + static_cast<std::uint8_t>(index));
    l.log_index = index;
    return l;
}

struct Recorder {
    std::vector<LogFilter> filters;
    std::vector<Log> answer;  // returned for Transfer queries
    ChainScanner::GetLogs fn() {
        return [this](const LogFilter& f) {
            filters.push_back(f);
            return f.topics.front().front() == transfer_topic() ? answer : std::vector<Log>{};
        };
    }
};

TEST(ChainScan, AsksOnlyForTransfersToWatchedAddressesInChunks) {
    WatchList watch;
    for (int i = 0; i < 450; ++i) {
        watch.watch("0xinv" + std::to_string(i), address(0x40 + static_cast<std::uint8_t>(i / 200),
                                                         static_cast<std::uint8_t>(i % 200)));
    }
    watch.watch("0xwallet-only", std::nullopt);
    Recorder node;
    ChainScanner scanner(targets(200), node.fn());
    ASSERT_TRUE(scanner.scan(5, 6, {header(5), header(6)}, watch).has_value());
    std::vector<const LogFilter*> transfers;
    for (const auto& f : node.filters) {
        EXPECT_EQ(f.from_block, 5u);
        EXPECT_EQ(f.to_block, 6u);
        if (f.topics.front().front() == transfer_topic()) transfers.push_back(&f);
    }
    ASSERT_EQ(transfers.size(), 3u);  // 200 + 200 + 50 deposit addresses
    std::size_t asked = 0;
    for (const auto* f : transfers) {
        EXPECT_EQ(f->addresses, std::vector<Address>{kToken});
        ASSERT_EQ(f->topics.size(), 3u);
        EXPECT_TRUE(f->topics[1].empty()) << "any sender";
        EXPECT_LE(f->topics[2].size(), 200u);
        for (const auto& t : f->topics[2]) {
            Address to;
            std::copy(t.begin() + 12, t.end(), to.bytes.begin());
            EXPECT_NE(watch.invoice_of(to), nullptr) << "asked for an unwatched address";
            EXPECT_TRUE(std::all_of(t.begin(), t.begin() + 12, [](auto b) { return b == 0; }));
        }
        asked += f->topics[2].size();
    }
    EXPECT_EQ(asked, 450u);
    EXPECT_EQ(node.filters.size(), 5u);  // + router InvoicePaid + factory Settled
}

TEST(ChainScan, AboveTheFilterMaxOneTransferQueryMatchedByItsToWhateverIsWatched) {
    for (const int watched : {1001, 20000}) {
        WatchList watch;
        for (int i = 0; i < watched; ++i) {
            watch.watch("0xinv" + std::to_string(i),
                        address(0x40 + static_cast<std::uint8_t>(i / 256),
                                static_cast<std::uint8_t>(i % 256)));
        }
        Recorder node;
        node.answer = {transfer_log(address(0x40, 7), 5, 5, 0),
                       transfer_log(address(0x99, 1), 6, 5, 1),  // not watched
                       transfer_log(address(0x41, 3), 7, 6, 0)};
        ScanTargets t = targets(200);
        t.transfer_filter_max = 1000;
        ChainScanner scanner(t, node.fn());
        const auto found = scanner.scan(5, 6, {header(5), header(6)}, watch);
        ASSERT_TRUE(found.has_value());
        ASSERT_EQ(node.filters.size(), 3u) << watched << " watched";
        std::size_t transfers = 0;
        for (const auto& f : node.filters) {
            if (f.topics.front().front() != transfer_topic()) continue;
            ++transfers;
            EXPECT_EQ(f.addresses, std::vector<Address>{kToken});
            EXPECT_EQ(f.topics.size(), 1u) << "no to filter above the threshold";
        }
        EXPECT_EQ(transfers, 1u);
        ASSERT_EQ(found->size(), 2u);
        ASSERT_EQ(found->at(5).size(), 1u);
        EXPECT_EQ(found->at(5)[0].invoice, "0xinv7");
        ASSERT_EQ(found->at(6).size(), 1u);
        EXPECT_EQ(found->at(6)[0].invoice, "0xinv259");
        EXPECT_EQ(scanner.last_log_count(), 3u);
    }
}

TEST(ChainScan, AboveTheFilterMaxTransferQueriesSpanAtMostTheBlockSpan) {
    WatchList watch;
    watch.watch("0xa", address(0x40, 1));
    watch.watch("0xb", address(0x40, 2));
    Recorder node;
    ScanTargets t = targets();
    t.transfer_filter_max = 1;
    t.transfer_block_span = 10;
    ChainScanner scanner(t, node.fn());
    std::vector<BlockHeader> headers;
    for (std::uint64_t n = 5; n <= 29; ++n) headers.push_back(header(n));
    ASSERT_TRUE(scanner.scan(5, 29, headers, watch).has_value());
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
    for (const auto& f : node.filters) {
        if (f.topics.front().front() == transfer_topic()) {
            spans.emplace_back(f.from_block, f.to_block);
        } else {
            EXPECT_EQ(f.from_block, 5u);  // router and factory: the whole range at once
            EXPECT_EQ(f.to_block, 29u);
        }
    }
    EXPECT_EQ(spans,
              (std::vector<std::pair<std::uint64_t, std::uint64_t>>{{5, 14}, {15, 24}, {25, 29}}));
}

TEST(ChainScan, ForgottenChargesLeaveTheFilterAndNothingWatchedAsksNothing) {
    WatchList watch;
    watch.watch("0xa", address(0x40, 1));
    watch.watch("0xb", address(0x40, 2));
    watch.forget("0xa", address(0x40, 1));
    EXPECT_FALSE(watch.watches("0xa"));
    EXPECT_EQ(watch.invoice_of(address(0x40, 1)), nullptr);
    EXPECT_EQ(watch.deposit_addresses(), std::vector<Address>{address(0x40, 2)});
    watch.forget("0xb", address(0x40, 2));
    Recorder node;
    ChainScanner scanner(targets(), node.fn());
    ASSERT_TRUE(scanner.scan(1, 1, {header(1)}, watch).has_value());
    EXPECT_TRUE(node.filters.empty());
}

TEST(ChainScan, TransfersBecomeObservationsInLogOrder) {
    WatchList watch;
    watch.watch("0xinv", address(0x40, 7));
    Recorder node;
    node.answer = {transfer_log(address(0x40, 7), 500, 6, 9),
                   transfer_log(address(0x40, 7), 300, 6, 2),
                   transfer_log(address(0x40, 8), 999, 5, 1)};  // the last: not ours
    ChainScanner scanner(targets(), node.fn());
    const auto got = scanner.scan(5, 6, {header(5), header(6)}, watch);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(scanner.last_log_count(), 3u);
    EXPECT_FALSE(got->contains(5));
    const auto& six = got->at(6);
    ASSERT_EQ(six.size(), 2u);
    EXPECT_EQ(six[0].payment.log_index, 2u);
    EXPECT_EQ(six[0].payment.amount.value, 300u);
    EXPECT_EQ(six[1].payment.amount.value, 500u);
    EXPECT_EQ(six[0].kind, ChainObservation::Kind::transfer);
    EXPECT_EQ(six[0].invoice, "0xinv");
    EXPECT_EQ(six[0].payment.token, kToken);
    EXPECT_EQ(six[0].payment.from, address(0x22));
}

TEST(ChainScan, ALogOfAnotherBlockHashMeansTheChainMoved) {
    WatchList watch;
    watch.watch("0xinv", address(0x40, 7));
    Recorder node;
    auto moved = transfer_log(address(0x40, 7), 1, 6, 0);
    moved.block_hash = word(0xee);
    node.answer = {moved};
    ChainScanner scanner(targets(), node.fn());
    EXPECT_FALSE(scanner.scan(5, 6, {header(5), header(6)}, watch).has_value());
}

TEST(ChainScan, RouterAndFactoryLogsOfWatchedInvoicesOnly) {
    WatchList watch;
    const Bytes32 invoice = word(0x99);
    watch.watch(domain::to_hex(invoice), std::nullopt);
    Log paid;
    paid.address = kRouter;
    paid.topics = {invoice_paid_topic(), invoice, address_topic(address(0x22)),
                   address_topic(address(0x44))};
    paid.data = uint_word(0);
    const Bytes amount = uint_word(1234);
    Bytes token_word(32, 0);
    std::copy(kToken.bytes.begin(), kToken.bytes.end(), token_word.begin() + 12);
    paid.data = token_word;
    paid.data.insert(paid.data.end(), amount.begin(), amount.end());
    const auto m = match_log(paid, targets(), watch);
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->kind, ChainObservation::Kind::wallet);
    EXPECT_EQ(m->payment.token, kToken);
    EXPECT_EQ(m->payment.amount.value, 1234u);

    Log other = paid;
    other.topics[1] = word(0x98);
    EXPECT_FALSE(match_log(other, targets(), watch).has_value());
    Log foreign_router = paid;
    foreign_router.address = address(0x0f);
    EXPECT_FALSE(match_log(foreign_router, targets(), watch).has_value());

    Log settled;
    settled.address = kFactory;
    settled.topics = {settled_topic(), invoice, address_topic(address(0x55))};
    settled.data = paid.data;
    const auto s = match_log(settled, targets(), watch);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->kind, ChainObservation::Kind::settled);
    EXPECT_EQ(s->settled.deposit_address, address(0x55));
    EXPECT_EQ(s->settled.amount.value, 1234u);
}

}  // namespace
}  // namespace duepay::infra::rpc
