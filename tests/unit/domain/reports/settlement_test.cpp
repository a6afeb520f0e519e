// What a settlement row is (domain/reports/settlement.hpp), table by table: given the charge's
// events so far / when one event is applied / then the rows it adds. Every event type appears in
// the table, in the states where it could (or must not) add a row.
#include "domain/reports/settlement.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "domain/charge/decide.hpp"
#include "tests/unit/domain/charge/facts.hpp"

namespace duepay::domain::reports {
namespace {

using namespace domain::charge::facts;
namespace ch = domain::charge;

// A refund requested and recorded for tx `tx`: its id as decide derives it.
std::string refund_id_of(std::uint8_t tx) { return ch::refund_id(kInvoice, bytes32(tx)); }
Event requested(std::string id, std::uint8_t tx) {
    return event(std::move(id), RefundRequested{refund_id_of(tx), bytes32(tx)});
}
Event recorded(std::string id, std::uint8_t tx, std::uint64_t amount, std::uint32_t log = 3) {
    return event(std::move(id), ChargeRefunded{refund_id_of(tx), bytes32(tx), log, 77,
                                               address(0x22), kToken, TokenAmount{amount}});
}
Event rejected(std::string id, std::uint8_t tx) {
    return event(std::move(id),
                 RefundRejected{refund_id_of(tx), bytes32(tx), RefundRejection::wrong_sender});
}

struct Expected {
    RowKind kind;
    std::uint8_t tx;
    std::uint64_t amount;
    std::uint64_t block;
};

struct Case {
    const char* name;
    std::vector<Event> given;
    Event when;
    std::vector<Expected> then;
};

Payment at(std::uint8_t tx, std::uint64_t amount, Rail rail, std::uint64_t block) {
    return payment(tx, amount, rail, block);
}

std::vector<Case> cases() {
    const Payment a = at(1, 100, Rail::transfer, 5);
    const Payment w = at(2, 100, Rail::wallet, 6);
    const Payment b = at(3, 30, Rail::transfer, 7);
    const Payment stray = payment(4, 9, Rail::transfer, 8, 0, kOtherToken);
    const auto pay = RowKind::payment;
    const auto ref = RowKind::refund;
    return {
        {"created", {}, created(100), {}},
        {"a second created", {created(100)}, created(50, "c2"), {}},
        {"detected", {created(100)}, detected("t1", a), {}},
        {"deposit_seen confirms a transfer",
         {created(100), detected("t1", a)},
         deposit("d1", a),
         {{pay, 1, 100, 5}}},
        {"paid after its deposit_seen: counted once",
         {created(100), deposit("d1", a)},
         paid("p1", a, 100),
         {}},
        {"underpaid after its deposit_seen: counted once",
         {created(100), deposit("d1", b)},
         underpaid("u1", b, 30),
         {}},
        {"paid on the wallet rail",
         {created(100), detected("t2", w)},
         paid("p2", w, 100),
         {{pay, 2, 100, 6}}},
        {"underpaid without a deposit_seen before",
         {created(100)},
         underpaid("u1", b, 30),
         {{pay, 3, 30, 7}}},
        {"a top-up after an underpayment",
         {created(100), deposit("d3", b), underpaid("u3", b, 30)},
         deposit("d1", a),
         {{pay, 1, 100, 5}}},
        {"an overpayment after paid",
         {created(100), paid("p2", w, 100)},
         deposit("d3", b),
         {{pay, 3, 30, 7}}},
        {"reorg of a detection", {created(100), detected("t1", a)}, reorged("r1", a), {}},
        {"expired", {created(100)}, expired(), {}},
        {"late_deposit after expiry", {created(100), expired()}, late("l1", a), {{pay, 1, 100, 5}}},
        {"late_deposit of a confirmed payment",
         {created(100), deposit("d1", a)},
         late("l1", a),
         {}},
        {"deposit_seen of a late payment",
         {created(100), expired(), late("l1", a)},
         deposit("d1", a),
         {}},
        {"wrong-token deposit", {created(100)}, failed("f1", stray), {}},
        {"settled", {created(100), deposit("d1", a)}, settled("s1", 100), {}},
        {"refund requested", {created(100), deposit("d1", a)}, requested("rq", 9), {}},
        {"refund rejected",
         {created(100), deposit("d1", a), requested("rq", 9)},
         rejected("rj", 9),
         {}},
        {"refund recorded",
         {created(100), deposit("d1", a), requested("rq", 9)},
         recorded("rf", 9, 40),
         {{ref, 9, 40, 77}}},
        {"refund recorded without a request",
         {created(100), deposit("d1", a)},
         recorded("rf", 9, 100),
         {{ref, 9, 100, 77}}},
        {"refund recorded twice under another id",
         {created(100), deposit("d1", a), recorded("rf", 9, 40)},
         recorded("rf2", 9, 40),
         {}},
        {"refund of a late deposit",
         {created(100), expired(), late("l1", a)},
         recorded("rf", 9, 100),
         {{ref, 9, 100, 77}}},
        {"refund recorded after a rejection",
         {created(100), deposit("d1", a), requested("rq", 9), rejected("rj", 9)},
         recorded("rf", 9, 40),
         {}},
        {"refund with no funds", {created(100)}, recorded("rf", 9, 40), {}},
        {"refund of wrong-token funds only",
         {created(100), failed("f1", stray)},
         recorded("rf", 9, 9),
         {{ref, 9, 9, 77}}},
        {"a duplicate id", {created(100), deposit("d1", a)}, deposit("d1", a), {}},
        {"a duplicate id with other content",
         {created(100), deposit("d1", a)},
         deposit("d1", b),
         {}},
        {"a payment before created", {}, deposit("d1", a), {}},
    };
}

TEST(SettlementRows, TableOfEventsAndTheRowsTheyAdd) {
    for (const auto& c : cases()) {
        SCOPED_TRACE(c.name);
        const ch::ChargeState before = ch::fold(c.given);
        const ch::ChargeState after = ch::evolve(before, c.when);
        const auto rows = entries_of(before, c.when, after);
        ASSERT_EQ(rows.size(), c.then.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            EXPECT_EQ(rows[i].kind, c.then[i].kind);
            EXPECT_EQ(rows[i].tx_hash, bytes32(c.then[i].tx));
            EXPECT_EQ(rows[i].amount, TokenAmount{c.then[i].amount});
            EXPECT_EQ(rows[i].block_number, c.then[i].block);
            EXPECT_EQ(rows[i].event_id, c.when.id);
            EXPECT_EQ(rows[i].occurred_at, c.when.occurred_at);
            EXPECT_EQ(rows[i].refund_id.empty(), c.then[i].kind == RowKind::payment);
        }
        // may_add_rows is the cheap test in front of the copy: never false where a row comes.
        if (!rows.empty()) {
            EXPECT_TRUE(may_add_rows(c.when));
        }
        // apply_collecting is apply plus the same rows.
        ch::ChargeState state = before;
        std::vector<SettlementEntry> collected;
        apply_collecting(state, c.when, collected);
        EXPECT_EQ(state, after);
        EXPECT_EQ(collected, rows);
    }
}

TEST(SettlementRows, AnEventForAnotherInvoiceAddsNone) {
    const ch::ChargeState before = ch::fold(std::vector{created(100)});
    Event other = deposit("d1", payment(1, 100));
    other.invoice_id = InvoiceId{bytes32(0x99)};
    EXPECT_TRUE(entries_of(before, other, ch::evolve(before, other)).empty());
}

TEST(SettlementRows, TheRowsOfAChargeAreItsFold) {
    const Payment a = payment(1, 60, Rail::transfer, 5);
    const Payment b = payment(3, 50, Rail::transfer, 9);
    const std::vector<Event> events{created(100),           detected("t1", a),  deposit("d1", a),
                                    underpaid("u1", a, 60), deposit("d1", a),   detected("t3", b),
                                    deposit("d3", b),       paid("p3", b, 110), requested("rq", 9),
                                    recorded("rf", 9, 10)};
    const auto rows = settlement_entries(events);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].event_id, "d1");
    EXPECT_EQ(rows[1].event_id, "d3");
    EXPECT_EQ(rows[2].kind, RowKind::refund);
    // The payment rows add up to the charge's confirmed + late; the refund rows to its refunded.
    const auto state = ch::fold(events);
    uint256 paid = 0, refunded = 0;
    for (const auto& r : rows) (r.kind == RowKind::payment ? paid : refunded) += r.amount.value;
    EXPECT_EQ(paid, state.amount_confirmed.value + state.amount_late.value);
    EXPECT_EQ(refunded, state.amount_refunded.value);
}

TEST(SettlementRows, AStateNoEventExplainsIsABrokenInvariant) {
    const ch::ChargeState before = ch::fold(std::vector{created(100)});
    const ch::ChargeState after = ch::fold(std::vector{created(100), deposit("d1", payment(1, 5))});
    EXPECT_THROW((void)entries_of(before, expired(), after), std::logic_error);
}

}  // namespace
}  // namespace duepay::domain::reports
